import PushAttach
/// Finds the 1-based line of a place in a JSON document, so items and problems from a
/// multi-line payload point somewhere useful.
///
///     let locator = LineLocator(Array("{\n \"media_url\": \"https://x/a.jpg\"\n}".utf8))
///     locator.line(of: "https://x/a.jpg")   // 2
///     locator.line(atOffset: 0)              // 1
///
/// JSON may escape `/` as `\/`; both spellings are tried. Unfound strings give the line the
/// search started on.
struct LineLocator {
    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The line on which `text` first appears at or after byte `start`.
    func line(of text: String, from start: Int = 0) -> Int {
        let plain = Array(text.utf8)
        let escaped = Array(text.replacingOccurrences(of: "/", with: "\\/").utf8)
        let offsets = [plain, escaped].compactMap { firstOffset(of: $0, from: start) }
        return line(atOffset: offsets.min() ?? start)
    }

    /// The line byte `offset` is on (clamped to the document).
    func line(atOffset offset: Int) -> Int {
        1 + bytes[..<max(0, min(offset, bytes.count))].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    /// Where each element of the document's top-level array starts, or, when the document is
    /// one value, where that value starts: the byte offset of its first character. For a
    /// document `JSONSerialization` has parsed (strings and nesting are tracked, nothing more
    /// is checked).
    func valueStarts() -> [Int] {
        var index = 0
        func skipSpace() { while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 } }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipSpace()
        guard index < bytes.count else { return [] }
        guard bytes[index] == UInt8(ascii: "[") else { return [index] }
        var starts: [Int] = []
        var depth = 0
        var inString = false
        var escaped = false
        var expectingElement = true
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if !Self.isSpace(byte) {
                if depth == 0, byte == UInt8(ascii: "]") { break }
                if depth == 0, byte == UInt8(ascii: ",") {
                    expectingElement = true
                } else {
                    if depth == 0, expectingElement {
                        starts.append(index)
                        expectingElement = false
                    }
                    switch byte {
                    case UInt8(ascii: "\""): inString = true
                    case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
                    case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
                    default: break
                    }
                }
            }
            index += 1
        }
        return starts
    }

    private func firstOffset(of needle: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, needle.count <= bytes.count else { return nil }
        var index = max(0, start)
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0], bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
}
