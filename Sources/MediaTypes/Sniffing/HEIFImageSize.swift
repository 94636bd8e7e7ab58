/// Image size of a HEIC/HEIF/AVIF file as displayed: the primary item's (`pitm`) `ispe`, or a
/// `grid`/`iovl` output size, cropped by its `clap` and turned by its `irot`
/// (`HEIFPrimaryImage.displayedSize`, the walk the codec's checks use too). When the item
/// structure cannot be walked, the largest `ispe` in `ipco` stands in.
///
///     HEIFImageSize.read(bytes)  // (width: 3024, height: 4032) for a portrait iPhone photo
enum HEIFImageSize {
    static func read(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        let displayed = bytes.withUnsafeBytes { raw in (try? HEIFPrimaryImage(raw))?.displayedSize }
        return displayed ?? properties(bytes)?.size
    }

    /// Whether the file has an alpha plane: an `auxC` property naming the alpha auxiliary type
    /// (HEVC's `urn:mpeg:hevc:2015:auxid:1`, MIAF's `urn:mpeg:mpegB:cicp:systems:auxiliary:alpha`).
    /// nil when the properties cannot be read. Depth maps and gain maps are other `auxC` types.
    ///
    ///     HEIFImageSize.hasAlpha(bytes)  // true for an AVIF with transparency
    static func hasAlpha(_ bytes: [UInt8]) -> Bool? { properties(bytes)?.alpha }

    private static let alphaTypes = ["urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha"]

    /// The largest `ispe` (a stand-in for the primary's size) and whether an alpha `auxC` is present, from one walk of `ipco`.
    private static func properties(_ bytes: [UInt8]) -> (size: (width: Int, height: Int)?, alpha: Bool)? {
        let reader = ByteReader(bytes)
        guard let meta = box("meta", in: reader, from: 0, to: bytes.count),
            let iprp = box("iprp", in: reader, from: meta.body + 4, to: meta.end),
            let ipco = box("ipco", in: reader, from: iprp.body, to: iprp.end)
        else { return nil }
        var best: (width: Int, height: Int)?
        var alpha = false
        var i = ipco.body
        var guardCount = 0
        while i + 8 <= ipco.end, guardCount < 4096 {
            guardCount += 1
            guard let size = try? reader.uint32(at: i, .big), size >= 8,
                let type = try? reader.ascii(at: i + 4, count: 4)
            else { break }
            if type == "auxC", Int(size) >= 12, i + Int(size) <= min(ipco.end, bytes.count) {
                // version and flags (4 bytes), then a NUL-terminated URN.
                let urn = bytes[(i + 12)..<(i + Int(size))].prefix { $0 != 0 }
                if alphaTypes.contains(String(decoding: urn, as: UTF8.self)) { alpha = true }
            }
            if type == "ispe", let w = try? reader.uint32(at: i + 12, .big),
                let h = try? reader.uint32(at: i + 16, .big),
                w > 0, h > 0
            {
                // UInt32 x UInt32 fits in UInt64; compare areas there so hostile sizes cannot overflow.
                let area = UInt64(w) * UInt64(h)
                if area > (best.map { UInt64($0.width) * UInt64($0.height) } ?? 0) { best = (Int(w), Int(h)) }
            }
            i += Int(size)
        }
        return (best, alpha)
    }

    /// The first box of `type` among the sibling boxes in `start..<end`.
    private static func box(_ type: String, in reader: ByteReader, from start: Int, to end: Int) -> (
        body: Int, end: Int
    )? {
        var i = start
        var guardCount = 0
        while i + 8 <= min(end, reader.count), guardCount < 1024 {
            guardCount += 1
            guard let size32 = try? reader.uint32(at: i, .big), let name = try? reader.ascii(at: i + 4, count: 4) else {
                return nil
            }
            var header = 8
            var size = Int(size32)
            if size32 == 1 {
                guard let large = try? reader.uint64(at: i + 8, .big), large <= UInt64(Int32.max) else { return nil }
                size = Int(large)
                header = 16
            } else if size32 == 0 {
                size = end - i
            }
            guard size >= header else { return nil }
            if name == type { return (i + header, min(end, i + size)) }
            i += size
        }
        return nil
    }
}
