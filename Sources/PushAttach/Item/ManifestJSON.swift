import Foundation
import MediaTypes
import SystemSupport

/// JSON text whose object keys come out in the order they are listed: the manifest's fixed key
/// order. (`JSONEncoder` on Linux writes an object's keys in hash order, which changes from one
/// line to the next, unless told to sort them alphabetically.)
///
///     let value = ManifestJSON.object([("index", .int(0)), ("input", .string("https://x.test/a.jpg"))])
///     value.data()              // {"index":0,"input":"https://x.test/a.jpg"}
///     value.data(indent: 1)     // the same, one key a line, indented to sit one level deep
///
/// Strings are escaped as `JSONEncoder` escapes them, slashes left alone, and then, as everywhere
/// JSON leaves the program, through `DisplayText.escapedJSON` (U+2028, U+2029, C1 and bidi
/// controls written `\uXXXX`), so decoding gives back the same strings.
package enum ManifestJSON {
    case null
    case int(Int)
    case string(String)
    case strings([String])
    case object([(key: String, value: ManifestJSON)])

    package static func optional(_ value: Int?) -> ManifestJSON { value.map { .int($0) } ?? .null }
    package static func optional(_ value: String?) -> ManifestJSON { value.map { .string($0) } ?? .null }
    package static func optional(_ value: [String]?) -> ManifestJSON { value.map { .strings($0) } ?? .null }

    /// The text: compact (no whitespace) when `indent` is nil; otherwise pretty, two spaces a
    /// level, the value itself starting at level `indent` (its first line is not indented: the
    /// caller has placed it).
    package func data(indent: Int? = nil) -> Data {
        var out = Data()
        write(to: &out, level: indent)
        return DisplayText.escapedJSON(out)
    }

    private func write(to out: inout Data, level: Int?) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .string(let text): Self.append(string: text, to: &out)
        case .strings(let texts):
            list(texts, open: "[", close: "]", to: &out, level: level) { (text: String, out: inout Data, _: Int?) in
                Self.append(string: text, to: &out)
            }
        case .object(let members):
            list(members, open: "{", close: "}", to: &out, level: level) {
                (member: (key: String, value: ManifestJSON), out: inout Data, level: Int?) in
                Self.append(string: member.key, to: &out)
                out.append(contentsOf: (level == nil ? ":" : ": ").utf8)
                member.value.write(to: &out, level: level)
            }
        }
    }

    /// `[a,b]` or, pretty, one element a line one level in; empty is `[]` (`{}`) either way.
    private func list<Element>(
        _ elements: [Element], open: String, close: String, to out: inout Data, level: Int?,
        element: (Element, inout Data, Int?) -> Void
    ) {
        out.append(contentsOf: open.utf8)
        defer { out.append(contentsOf: close.utf8) }
        guard !elements.isEmpty else { return }
        let inner = level.map { $0 + 1 }
        for (number, item) in elements.enumerated() {
            if number > 0 { out.append(0x2C) }
            if let inner { Self.newline(indent: inner, to: &out) }
            element(item, &out, inner)
        }
        if let level { Self.newline(indent: level, to: &out) }
    }

    private static func newline(indent: Int, to out: inout Data) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: 2 * indent))
    }

    /// `text` quoted, with `"`, `\` and U+0000-U+001F escaped (the short forms where JSON has
    /// them); everything else as UTF-8 (`escapedJSON` then handles the rest).
    package static func append(string text: String, to out: inout Data) {
        out.append(0x22)
        for unit in text.utf8 {
            switch unit {
            case 0x22: out.append(contentsOf: #"\""#.utf8)
            case 0x5C: out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x08: out.append(contentsOf: #"\b"#.utf8)
            case 0x0C: out.append(contentsOf: #"\f"#.utf8)
            case 0x00..<0x20:
                let hex = String(unit, radix: 16, uppercase: true)
                out.append(contentsOf: ("\\u00" + (hex.count == 1 ? "0" : "") + hex).utf8)
            default: out.append(unit)
            }
        }
        out.append(0x22)
    }
}

extension ManifestJSON: Encodable {
    /// The same members through any `Encoder` (which may reorder an object's keys).
    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .int(let value):
            var c = encoder.singleValueContainer()
            try c.encode(value)
        case .string(let text):
            var c = encoder.singleValueContainer()
            try c.encode(text)
        case .strings(let texts):
            var c = encoder.singleValueContainer()
            try c.encode(texts)
        case .object(let members):
            var c = encoder.container(keyedBy: Key.self)
            for member in members { try c.encode(member.value, forKey: Key(member.key)) }
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
