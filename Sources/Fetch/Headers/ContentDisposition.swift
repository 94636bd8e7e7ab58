/// The filename a Content-Disposition header suggests (RFC 6266), raw and untrusted.
///
///     ContentDisposition.filename(from: #"attachment; filename="cat.jpg""#)        // "cat.jpg"
///     ContentDisposition.filename(from: "inline; filename*=UTF-8''%E7%8C%AB.jpg")  // "猫.jpg"
///     ContentDisposition.filename(from: #"attachment; filename="../../etc/passwd""#)  // "../../etc/passwd"
///
/// `filename*` (RFC 8187 extended value, UTF-8 or ISO-8859-1) wins over `filename`. The result
/// may hold separators, dots or control characters: sanitising is the container's job.
package enum ContentDisposition {
    /// The suggested filename, or nil when the header has none (or only an undecodable one).
    package static func filename(from header: String) -> String? {
        let parameters = parse(header)
        if let extended = parameters["filename*"], let decoded = decodeExtended(extended) {
            return decoded
        }
        if let plain = parameters["filename"], !plain.isEmpty { return plain }
        return nil
    }

    /// The disposition type, lowercased (`attachment`, `inline`), or nil when empty.
    package static func type(of header: String) -> String? {
        let type = header.prefix { $0 != ";" }.trimmed.lowercased()
        return type.isEmpty ? nil : type
    }

    /// Parameters by lowercased name; values unquoted (extended values left encoded). The first
    /// occurrence of a name wins.
    static func parse(_ header: String) -> [String: String] {
        var result: [String: String] = [:]
        var chars = Array(header)[...]
        // Skip the disposition type.
        while let c = chars.first, c != ";" { chars = chars.dropFirst() }
        while !chars.isEmpty {
            chars = chars.drop { $0 == ";" || $0 == " " || $0 == "\t" }
            let name = String(chars.prefix { $0 != "=" && $0 != ";" }).trimmed.lowercased()
            chars = chars.drop { $0 != "=" && $0 != ";" }
            guard chars.first == "=" else { continue }
            chars = chars.dropFirst().drop { $0 == " " || $0 == "\t" }
            var value = ""
            if chars.first == "\"" {
                chars = chars.dropFirst()
                while let c = chars.first {
                    chars = chars.dropFirst()
                    if c == "\\", let escaped = chars.first {
                        value.append(escaped)
                        chars = chars.dropFirst()
                    } else if c == "\"" {
                        break
                    } else {
                        value.append(c)
                    }
                }
                chars = chars.drop { $0 != ";" }
            } else {
                value = String(chars.prefix { $0 != ";" }).trimmed
                chars = chars.drop { $0 != ";" }
            }
            if !name.isEmpty, result[name] == nil { result[name] = value }
        }
        return result
    }

    /// Decodes `charset'language'percent-encoded` (RFC 8187); nil when malformed.
    static func decodeExtended(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let charset = parts[0].lowercased()
        var bytes: [UInt8] = []
        var utf8 = parts[2].utf8[...]
        while let byte = utf8.first {
            utf8 = utf8.dropFirst()
            if byte == UInt8(ascii: "%") {
                guard utf8.count >= 2, let high = hexValue(utf8.first!), let low = hexValue(utf8.dropFirst().first!)
                else { return nil }
                bytes.append(high << 4 | low)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        let decoded: String?
        switch charset {
        case "utf-8": decoded = String(validating: bytes, as: UTF8.self)
        case "iso-8859-1": decoded = String(bytes.map { Character(Unicode.Scalar($0)) })
        default: decoded = nil
        }
        guard let decoded, !decoded.isEmpty else { return nil }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension StringProtocol {
    fileprivate var trimmed: String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}
