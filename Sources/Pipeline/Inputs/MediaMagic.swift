/// Tells a local media file from a text or JSON input by its first bytes.
///
///     MediaMagic.looksLikeMedia([0xFF, 0xD8, 0xFF, 0xE0])     // true: JPEG
///     MediaMagic.looksLikeMedia(Array("https://x/a.jpg\n".utf8))  // false
///
/// A stop-gap until `MediaTypes`' sniffer lands: known magic (JPEG, PNG, GIF, RIFF (WebP, WAV,
/// AVI), ID3, ISO BMFF `ftyp`, FORM (AIFF), TIFF, MPEG PS) or bytes that are not UTF-8 text
/// (a NUL, or an invalid sequence before the last three bytes) mean media.
enum MediaMagic {
    private static let signatures: [(offset: Int, bytes: [UInt8])] = [
        (0, [0xFF, 0xD8, 0xFF]),
        (0, [0x89, 0x50, 0x4E, 0x47]),
        (0, Array("GIF8".utf8)),
        (0, Array("RIFF".utf8)),
        (0, Array("ID3".utf8)),
        (0, Array("FORM".utf8)),
        (0, [0x49, 0x49, 0x2A, 0x00]),
        (0, [0x4D, 0x4D, 0x00, 0x2A]),
        (0, [0x00, 0x00, 0x01, 0xBA]),
        (4, Array("ftyp".utf8)),
    ]

    static func looksLikeMedia(_ prefix: [UInt8]) -> Bool {
        for signature in signatures where prefix.count >= signature.offset + signature.bytes.count {
            if prefix[signature.offset..<signature.offset + signature.bytes.count].elementsEqual(signature.bytes) {
                return true
            }
        }
        if prefix.contains(0) { return true }
        return !isUTF8Text(prefix)
    }

    /// Valid UTF-8, allowing a sequence cut short by the end of the prefix.
    private static func isUTF8Text(_ bytes: [UInt8]) -> Bool {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var consumed = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): consumed += UTF8.width(scalar)
            case .emptyInput: return true
            case .error: return bytes.count - consumed <= 3
            }
        }
    }
}
