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
        let line = line.trimmingCharacters(in: [" ", "\t", "\r", "\n"])
        if line.hasPrefix("HTTP/") {
            fields.removeAll()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: [" ", "\t"]).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t"])
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
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        Substring(self).trimmingCharacters(in: set)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        var view = self[...]
        while let first = view.first, set.contains(first) { view = view.dropFirst() }
        while let last = view.last, set.contains(last) { view = view.dropLast() }
        return String(view)
    }
}
