/// The header fields of one HTTP response, as libcurl hands them over line by line.
///
///     var headers = ResponseHeaders()
///     headers.consume(line: "HTTP/1.1 200 OK\r\n")
///     headers.consume(line: "Content-Type: image/png\r\n")
///     headers["content-type"]   // "image/png"
struct ResponseHeaders: Sendable {
    private(set) var fields: [(name: String, value: String)] = []

    /// Takes one raw header line. A status line starts a new response (after a 100 Continue
    /// or a redirect), so the fields seen before it are dropped.
    mutating func consume(line: String) {
        // Unicode scalars, not Characters: "\r\n" is one grapheme.
        let line = String(
            String.UnicodeScalarView(line.unicodeScalars.trimmed(where: { " \t\r\n".unicodeScalars.contains($0) })))
        if line.hasPrefix("HTTP/") {
            fields.removeAll()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon]).trimmingBlanks().lowercased()
        let value = String(line[line.index(after: colon)...]).trimmingBlanks()
        fields.append((name, value))
    }

    /// The last value of the field named `name` (case-insensitive).
    subscript(name: String) -> String? {
        let name = name.lowercased()
        return fields.last { $0.name == name }?.value
    }

    /// Content-Length, when present and a plain non-negative integer.
    var contentLength: Int? {
        guard let text = self["content-length"], !text.isEmpty, text.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int(text)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    fileprivate func trimmingBlanks() -> String {
        String(String.UnicodeScalarView(unicodeScalars.trimmed(where: { $0 == " " || $0 == "\t" })))
    }
}

extension String.UnicodeScalarView {
    fileprivate func trimmed(where isBlank: (Unicode.Scalar) -> Bool) -> Substring.UnicodeScalarView {
        var view = self[...]
        while let first = view.first, isBlank(first) { view = view.dropFirst() }
        while let last = view.last, isBlank(last) { view = view.dropLast() }
        return view
    }
}
