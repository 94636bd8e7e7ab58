/// Finds the 1-based line on which a string first appears in a JSON document, so items from a
/// multi-line payload point somewhere useful.
///
///     let locator = LineLocator(Array("{\n \"media_url\": \"https://x/a.jpg\"\n}".utf8))
///     locator.line(of: "https://x/a.jpg")   // 2
///
/// JSON may escape `/` as `\/`; both spellings are tried. Unfound strings give line 1.
struct LineLocator {
    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func line(of text: String) -> Int {
        let plain = Array(text.utf8)
        let escaped = Array(text.replacingOccurrences(of: "/", with: "\\/").utf8)
        let offsets = [plain, escaped].compactMap(firstOffset(of:))
        guard let offset = offsets.min() else { return 1 }
        return 1 + bytes[..<offset].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    private func firstOffset(of needle: [UInt8]) -> Int? {
        guard !needle.isEmpty, needle.count <= bytes.count else { return nil }
        var index = 0
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0], bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
