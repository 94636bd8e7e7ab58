/// Bytes no signature matched that are still recognisably one of the image formats the engine
/// reads, their signature damaged: a PNG with a byte of its eight-byte signature changed (or
/// line endings converted, as a text-mode transfer does), a GIF whose `GIF89a` lost a letter,
/// a WebP whose `RIFF`/`WEBP` tags are bent. Such a file is that format, damaged (105), not
/// "no media" (101): what it is decides, never its name.
///
///     DamagedSignature.format(of: [0x89, 0x51, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + ihdr)   // .png
///     DamagedSignature.format(of: Array("<html>".utf8))                                    // nil
enum DamagedSignature {
    /// The format the bytes resemble closely enough to be that format damaged; nil otherwise.
    static func format(of bytes: [UInt8]) -> MediaFormat? {
        // PNG: the IHDR chunk right after the signature, or one of its eight bytes wrong (MNG's
        // signature differs in two, and is another format).
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if bytes.count >= 16, Array(bytes[12..<16]) == Array("IHDR".utf8) { return .png }
        if mismatches(bytes, png, at: 0) <= 1 { return .png }
        // GIF: "GIF87a" or "GIF89a" with one byte wrong.
        if mismatches(bytes, Array("GIF87a".utf8), at: 0) <= 1 || mismatches(bytes, Array("GIF89a".utf8), at: 0) <= 1 {
            return .gif
        }
        // WebP: "RIFF", a size, "WEBP", with at most two of the eight tag bytes wrong and a chunk
        // tag ("VP8 ", "VP8L", "VP8X") after them.
        if bytes.count >= 16, Array(bytes[12..<15]) == Array("VP8".utf8),
            mismatches(bytes, Array("RIFF".utf8), at: 0) + mismatches(bytes, Array("WEBP".utf8), at: 8) <= 2
        {
            return .webp
        }
        // JPEG: the start-of-image marker, then stray bytes before a segment marker within the
        // next 14 bytes. libjpeg reads such a file ("extraneous bytes before marker"), so it is a
        // JPEG; two bytes alone are too weak a signature, the marker after them is what counts.
        if bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8,
            zip(bytes.prefix(16).dropFirst(2), bytes.prefix(16).dropFirst(3)).contains(where: { $0 == 0xFF && isSegmentMarker($1) })
        {
            return .jpeg
        }
        return nil
    }

    /// A marker that opens a JPEG segment at the start of a file: a frame, tables, an
    /// application or comment segment, or the scan (not a restart marker or a fill byte).
    private static func isSegmentMarker(_ byte: UInt8) -> Bool {
        (0xC0...0xCF).contains(byte) || (0xDA...0xFE).contains(byte)
    }

    /// How many of `signature`'s bytes differ from `bytes` at `offset`; the signature's length
    /// when `bytes` is too short to hold it.
    private static func mismatches(_ bytes: [UInt8], _ signature: [UInt8], at offset: Int) -> Int {
        guard bytes.count >= offset + signature.count else { return signature.count }
        return zip(bytes[offset...], signature).filter { $0 != $1 }.count
    }
}
