import MediaTypes
import PushAttach

/// Tells a local media file given as INPUT from a text or JSON list, by its first bytes.
///
///     MediaInput.looksLikeMedia([0xFF, 0xD8, 0xFF, 0xE0])          // true: JPEG
///     MediaInput.looksLikeMedia(Array("https://x/a.jpg\n".utf8))   // false
///
/// Media when `Sniffer.identify(prefix:)` (the one magic-byte table, in MediaTypes) names a
/// format, or when the bytes are not UTF-8 text (a NUL, or an invalid sequence before the last
/// three bytes): binary, so not a list either; such a file becomes one item and is rejected
/// with its type unknown, rather than read as thousands of garbage lines.
enum MediaInput {
    static func looksLikeMedia(_ head: some Collection<UInt8>) -> Bool {
        let bytes = Array(head)
        if Sniffer.identify(prefix: bytes) != .unknown { return true }
        if bytes.contains(0) { return true }
        return !isUTF8Text(bytes)
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
