import Foundation

/// The filename a `Content-Disposition` header suggests (RFC 6266), still untrusted: pass it to
/// `AttachmentName`, which sanitises it.
///
///     ContentDisposition.filename(from: #"attachment; filename="../../etc/passwd""#)   // "../../etc/passwd"
///     ContentDisposition.filename(from: "inline; filename*=UTF-8''caf%C3%A9.jpg")      // "café.jpg"
///
/// `filename*` (RFC 8187, UTF-8 or ISO-8859-1) wins over `filename`; quoted strings honour
/// backslash escapes. Returns nil when there is no usable filename.
public enum ContentDisposition {
    public static func filename(from header: String) -> String? {
        var plain: String?
        var extended: String?
        for (name, value) in parameters(header) {
            switch name {
            case "filename*": extended = extended ?? decodeExtended(value)
            case "filename": plain = plain ?? value
            default: continue
            }
        }
        let result = extended ?? plain
        return result?.isEmpty == false ? result : nil
    }

    /// `name=value` pairs after the disposition type, names lower-cased, quoted values unquoted.
    static func parameters(_ header: String) -> [(String, String)] {
        var pairs: [(String, String)] = []
        var rest = Substring(header)
        guard let firstSemicolon = rest.firstIndex(of: ";") else { return [] }
        rest = rest[rest.index(after: firstSemicolon)...]
        while !rest.isEmpty {
            rest = rest.drop(while: { $0 == " " || $0 == "\t" || $0 == ";" })
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...].drop(while: { $0 == " " || $0 == "\t" })
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        value.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        value.append(character)
                    }
                }
                rest = rest.drop(while: { $0 != ";" })
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            pairs.append((name, value))
        }
        return pairs
    }

    /// `charset'language'percent-encoded` (RFC 8187).
    static func decodeExtended(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let charset = parts[0].lowercased()
        var bytes: [UInt8] = []
        var iterator = parts[2].utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        switch charset {
        case "utf-8": return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1": return String(bytes.map { Character(Unicode.Scalar($0)) })
        default: return nil
        }
    }
}
