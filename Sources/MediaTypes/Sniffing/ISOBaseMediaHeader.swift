/// ISO base media facts: the `ftyp` brand as detail, whether the brands name a sequence
/// (AVIF/HEIF image sequences are animated images), for images the `ispe` size, and for movies
/// and sound each track's codec (`MovieTracks`).
///
///     try ISOBaseMediaHeader.sniff(bytes, as: .avif).detail  // "avis"
enum ISOBaseMediaHeader {
    static func sniff(_ bytes: [UInt8], as format: MediaFormat) throws(SniffError) -> SniffedType {
        let reader = ByteReader(bytes)
        guard let firstSize = try? reader.uint32(at: 0, .big), let firstType = try? reader.ascii(at: 4, count: 4) else {
            throw .truncated(format: format, detail: "the file ends inside the first box header")
        }
        var ftypOffset = 0
        if firstType != "ftyp" {
            // Legacy QuickTime (no ftyp), or a free/skip/wide box before the ftyp.
            guard firstSize >= 8, reader.matches(Array("ftyp".utf8), at: Int(firstSize) + 4) else {
                var legacy = SniffedType(format: format, detail: firstType.trimmingSpaces)
                if format.category != .image { legacy.tracks = MovieTracks.read(bytes) }
                return legacy
            }
            ftypOffset = Int(firstSize)
        }
        guard let size = try? reader.uint32(at: ftypOffset, .big), size >= 16 else {
            throw .invalidHeader(format: format, detail: "the ftyp box is shorter than its 16-byte minimum")
        }
        guard ftypOffset + Int(size) <= bytes.count else {
            throw .truncated(format: format, detail: "the ftyp box claims \(size) bytes, past the end")
        }
        guard let brands = ISOBaseMediaBrands.brands(in: bytes, boxAt: ftypOffset) else {
            throw .truncated(format: format, detail: "the ftyp box is cut short")
        }
        let isSequence = format.category == .image && ISOBaseMediaBrands.sequences.contains(brands.major)
        let extent = format.category == .image ? HEIFImageSize.read(bytes) : nil
        // The alpha plane picks the transcode target (PNG), so `verify` says what `prepare` makes.
        let alpha = format.category == .image ? HEIFImageSize.hasAlpha(bytes) : nil
        var sniffed = SniffedType(
            format: format, width: extent?.width, height: extent?.height,
            frames: isSequence ? nil : (extent == nil ? nil : 1), hasAlpha: alpha,
            isAnimated: isSequence, detail: brands.major.trimmingSpaces)
        if format.category != .image { sniffed.tracks = MovieTracks.read(bytes) }
        return sniffed
    }
}

extension String {
    /// Four-character codes padded with spaces ("qt  ", "M4A ") without the padding.
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
