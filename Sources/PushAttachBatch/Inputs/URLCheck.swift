import Foundation
import MediaTypes
import PushAttach
import SystemSupport

/// Checks that a string from an input is a URL we are willing to fetch.
///
///     URLCheck.problem("https://x.test/a.jpg")   // nil: fine
///     URLCheck.problem("htp:/x")                 // "not a URL: 'htp:/x' (expected http:// or https://)"
///
/// Rules: http or https only (file:// URLs are made by `InputReader` for local paths, never
/// taken from a list), a host, no whitespace or control characters, at most 8 KiB of UTF-8.
package enum URLCheck {
    package static let maxBytes = 8192

    /// Why `text` is not acceptable, or nil when it is.
    package static func problem(_ text: String, maxBytes: Int = maxBytes) -> String? {
        let size = text.utf8.count
        if size > maxBytes { return "URL too long: \(size) bytes (limit \(maxBytes))" }
        if text.unicodeScalars.contains(where: { $0.properties.isWhitespace || isControl($0) }) {
            return "URL contains a space or control character: \(quoted(text)) (percent-encode it as %20 etc.)"
        }
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            return "not a URL: \(quoted(text)) (expected http:// or https://)"
        }
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            return "not a URL: \(quoted(text)) (no host, or not well-formed)"
        }
        return nil
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `'text'`, without a user name or password it carries, cut to 80 characters, shown as
    /// `DisplayText` shows outside text (controls, bidi overrides and invisible characters
    /// escaped), for messages.
    static func quoted(_ text: String) -> String {
        let text = DisplayText.withoutCredentials(text)
        let cut = String(String.UnicodeScalarView(text.unicodeScalars.prefix(80)))
        return "'\(DisplayText.escaped(cut))\(text.unicodeScalars.count > 80 ? "…" : "")'"
    }
}
