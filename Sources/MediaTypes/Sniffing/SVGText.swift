/// SVG recognised as text: an optional UTF-8 BOM and whitespace, any XML declaration, comments,
/// processing instructions and DOCTYPE, then an `<svg` root element.
///
///     SVGText.looksLikeSVG(Array("<?xml version=\"1.0\"?><svg/>".utf8))  // true
enum SVGText {
    /// How far into the file the root element is looked for.
    static let scanLimit = 4096

    static func looksLikeSVG(_ bytes: [UInt8]) -> Bool {
        let text = Array(bytes.prefix(scanLimit))
        var i = 0
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        while true {
            while i < text.count, [0x20, 0x09, 0x0A, 0x0D].contains(text[i]) { i += 1 }
            guard i < text.count, text[i] == UInt8(ascii: "<") else { return false }
            if has("<?", text, i) {
                guard let end = find("?>", text, from: i + 2) else { return false }
                i = end + 2
            } else if has("<!--", text, i) {
                guard let end = find("-->", text, from: i + 4) else { return false }
                i = end + 3
            } else if has("<!doctype", text, i) {
                let close = find(">", text, from: i) ?? text.count
                if let open = find("[", text, from: i), open < close {
                    guard let end = find("]>", text, from: open) else { return false }
                    i = end + 2
                } else {
                    guard close < text.count else { return false }
                    i = close + 1
                }
            } else {
                return has("<svg", text, i) && i + 4 < text.count
                    && [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: ":")].contains(
                        text[i + 4])
            }
        }
    }

    /// Case-insensitive ASCII match of `word` at `i`.
    private static func has(_ word: String, _ text: [UInt8], _ i: Int) -> Bool {
        let w = Array(word.utf8)
        guard i + w.count <= text.count else { return false }
        for k in 0..<w.count where lower(text[i + k]) != w[k] { return false }
        return true
    }

    private static func find(_ word: String, _ text: [UInt8], from start: Int) -> Int? {
        let w = Array(word.utf8)
        guard start >= 0, text.count >= w.count, start <= text.count - w.count else { return nil }
        for i in start...(text.count - w.count) where has(word, text, i) { return i }
        return nil
    }

    private static func lower(_ b: UInt8) -> UInt8 { (0x41...0x5A).contains(b) ? b + 0x20 : b }
}
