/// What bytes that are no media look like, for the reason a person reads: an HTML page where an
/// image was expected is a different mistake from an empty file or a PDF.
///
///     ContentGuess.of(Array("<!DOCTYPE html><html>".utf8))   // .html
///     ContentGuess.of([])                                     // .empty
///
/// Only the first bytes are looked at, and nothing of them is quoted: a text file given by
/// mistake may hold secrets, and the guess is all a message says of it.
public enum ContentGuess: String, Sendable, Hashable, CaseIterable, Codable {
    /// No bytes at all.
    case empty
    /// An HTML page (a doctype or an `<html>`, `<head>`, `<body>` tag near the start): most
    /// often an error or login page served where the media was expected.
    case html
    /// XML that is not HTML (and not SVG, which is sniffed as a format).
    case xml
    /// A JSON object or array, often an API's error body.
    case json
    /// A PDF document.
    case pdf
    /// Text (valid UTF-8 without control characters other than white space): a note, a list, a
    /// configuration file.
    case text
    /// Binary bytes of no format this library knows.
    case binary

    /// How many leading bytes `of(_:)` looks at.
    public static let prefixLength = 1024

    /// The guess for a file whose first bytes are `prefix` (up to `prefixLength` are used).
    public static func of(_ prefix: some Collection<UInt8>) -> ContentGuess {
        var bytes = Array(prefix.prefix(prefixLength))
        if bytes.isEmpty { return .empty }
        if bytes.starts(with: Array("%PDF-".utf8)) { return .pdf }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let body = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard isText(Array(body)) else { return .binary }
        switch body.first {
        case UInt8(ascii: "<"):
            let lower = String(decoding: body, as: UTF8.self).lowercased()
            let htmlMarks = ["<!doctype html", "<html", "<head", "<body", "<title", "<meta", "<script", "<div"]
            return htmlMarks.contains(where: lower.contains) ? .html : .xml
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
        default: return .text
        }
    }

    /// True for UTF-8 text without control characters but tab, line feed, carriage return and
    /// form feed. A sequence cut by the end of the prefix still counts as text.
    static func isText(_ bytes: [UInt8]) -> Bool {
        if bytes.contains(where: { ($0 < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D].contains($0)) || $0 == 0x7F }) {
            return false
        }
        // Up to three bytes of a multi-byte sequence may be cut off at the end of the prefix.
        for cut in 0...min(3, bytes.count) where String(validating: bytes.dropLast(cut), as: UTF8.self) != nil {
            return true
        }
        return false
    }

    /// How a message names it: "an HTML page", "an empty file", "a PDF document".
    public var phrase: String {
        switch self {
        case .empty: "an empty file (0 bytes)"
        case .html: "an HTML page"
        case .xml: "an XML document"
        case .json: "JSON"
        case .pdf: "a PDF document"
        case .text: "plain text"
        case .binary: "bytes of no format iOS knows"
        }
    }
}
