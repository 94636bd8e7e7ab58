/// The transform properties of a HEIF file's primary image, read from the `meta` box: `clap`
/// (clean aperture crop), `irot` (rotation) and `imir` (mirror), which a reader applies in that
/// order (MIAF, ISO/IEC 23000-22 §7.3.6.7).
///
///     let transforms = HEIFTransforms.read(bytes)
///     transforms?.upright(width: 4032, height: 3024)   // (3024, 4032) for irot 90° or 270°
///
/// libheif applies them when it decodes, but libheif 1.15's `heif_image_handle_get_width` is
/// the coded (`ispe`) size, before them; `readInfo` must give the size the decode will have
/// (the engine plans its resize from it), so the size after the transforms is worked out here.
struct HEIFTransforms: Equatable {
    /// Counter-clockwise quarter turns (`irot`), 0...3.
    var quarterTurns = 0
    /// Whether an `imir` mirror is associated with the image.
    var mirrored = false
    /// The clean aperture's size in the coded orientation, when a `clap` crops the image.
    var clapSize: (width: Int, height: Int)?

    static func == (a: HEIFTransforms, b: HEIFTransforms) -> Bool {
        a.quarterTurns == b.quarterTurns && a.mirrored == b.mirrored && a.clapSize?.width == b.clapSize?.width
            && a.clapSize?.height == b.clapSize?.height
    }

    /// The displayed size of a `width × height` (`ispe`) image: cropped by `clap`, then turned.
    func upright(width: Int, height: Int) -> (width: Int, height: Int) {
        let (w, h) = clapSize ?? (width, height)
        return quarterTurns % 2 == 1 ? (h, w) : (w, h)
    }

    /// The primary item's transforms; nil when the boxes cannot be walked (libheif then decides).
    /// Bounded: at most 4096 boxes or associations are looked at.
    static func read(_ bytes: UnsafeRawBufferPointer) -> HEIFTransforms? {
        let reader = BoxReader(bytes: bytes)
        // `meta` is a full box: its children start after its version and flags.
        guard let metaBody = reader.child("meta", in: 0..<bytes.count), metaBody.count >= 4,
            case let meta = (metaBody.lowerBound + 4)..<metaBody.upperBound,
            let pitm = reader.child("pitm", in: meta),
            let iprp = reader.child("iprp", in: meta),
            let ipco = reader.child("ipco", in: iprp),
            let ipma = reader.child("ipma", in: iprp)
        else { return nil }
        // pitm: version, flags, then the item ID (16 bits, 32 in version 1).
        guard let pitmVersion = reader.u8(pitm.lowerBound),
            let primary = pitmVersion == 0 ? reader.u16(pitm.lowerBound + 4) : reader.u32(pitm.lowerBound + 4)
        else { return nil }
        // ipco: the properties, numbered from 1 in order.
        var properties: [(type: String, body: Range<Int>)] = []
        var i = ipco.lowerBound
        while i + 8 <= ipco.upperBound, properties.count < 4096 {
            guard let size = reader.u32(i), size >= 8, i + size <= ipco.upperBound, let type = reader.fourCC(i + 4)
            else { return nil }
            properties.append((type, (i + 8)..<(i + size)))
            i += size
        }
        // ipma: version, flags, entry count, then per item its ID and associations.
        guard let version = reader.u8(ipma.lowerBound), let flags = reader.u8(ipma.lowerBound + 3),
            let entries = reader.u32(ipma.lowerBound + 4)
        else { return nil }
        var p = ipma.lowerBound + 8
        var result = HEIFTransforms()
        for _ in 0..<min(entries, 4096) {
            guard let item = version < 1 ? reader.u16(p) : reader.u32(p) else { return nil }
            p += version < 1 ? 2 : 4
            guard let count = reader.u8(p) else { return nil }
            p += 1
            for _ in 0..<count {
                let wide = flags & 1 != 0
                guard let raw = wide ? reader.u16(p) : reader.u8(p) else { return nil }
                p += wide ? 2 : 1
                let index = raw & (wide ? 0x7FFF : 0x7F)
                guard item == primary, index >= 1, index <= properties.count else { continue }
                let property = properties[index - 1]
                switch property.type {
                case "irot":
                    guard let angle = reader.u8(property.body.lowerBound) else { return nil }
                    result.quarterTurns = (result.quarterTurns + (angle & 3)) % 4
                case "imir": result.mirrored = true
                case "clap": result.clapSize = reader.cleanAperture(property.body)
                default: break
                }
            }
            if item == primary { return result }
        }
        return result
    }
}

/// Big-endian reads within a buffer, nil past its end.
private struct BoxReader {
    let bytes: UnsafeRawBufferPointer

    func u8(_ at: Int) -> Int? { at >= 0 && at < bytes.count ? Int(bytes[at]) : nil }
    func u16(_ at: Int) -> Int? {
        guard let a = u8(at), let b = u8(at + 1) else { return nil }
        return a << 8 | b
    }
    func u32(_ at: Int) -> Int? {
        guard let a = u16(at), let b = u16(at + 2) else { return nil }
        return a << 16 | b
    }
    func fourCC(_ at: Int) -> String? {
        guard at >= 0, at + 4 <= bytes.count else { return nil }
        return String(decoding: bytes[at..<(at + 4)], as: UTF8.self)
    }

    /// The body of the first child box of `type` in `range` (after the 8- or 16-byte header);
    /// a full box's version and flags are left at the start of the body.
    func child(_ type: String, in range: Range<Int>) -> Range<Int>? {
        var i = range.lowerBound
        var seen = 0
        while i + 8 <= range.upperBound, seen < 4096 {
            seen += 1
            guard var size = u32(i), let name = fourCC(i + 4) else { return nil }
            var header = 8
            if size == 1 {
                guard let high = u32(i + 8), let low = u32(i + 12), high == 0 else { return nil }
                size = low
                header = 16
            } else if size == 0 {
                size = range.upperBound - i
            }
            guard size >= header, i + size <= range.upperBound else { return nil }
            if name == type { return (i + header)..<(i + size) }
            i += size
        }
        return nil
    }

    /// A `clap` body's width and height (two rationals), rounded as libheif does.
    func cleanAperture(_ body: Range<Int>) -> (width: Int, height: Int)? {
        guard let wn = u32(body.lowerBound), let wd = u32(body.lowerBound + 4), let hn = u32(body.lowerBound + 8),
            let hd = u32(body.lowerBound + 12), wd > 0, hd > 0, wn > 0, hn > 0
        else { return nil }
        return ((wn + wd / 2) / wd, (hn + hd / 2) / hd)
    }
}
