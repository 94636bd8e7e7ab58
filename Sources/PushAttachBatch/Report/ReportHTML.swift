import Foundation
import MediaTypes
import PushAttach
import SystemSupport

/// Text from outside (URLs, names, reasons, warnings: the network chose them) made safe for the
/// two places the report puts it.
///
///     ReportHTML.escaped("<script>alert('x')</script>")   // "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"
///     ReportHTML.escaped("photo\u{202E}gpj.exe")          // #"photo\u{202E}gpj.exe"#, as a terminal shows it
///     ReportHTML.scriptData(entry.json.data())             // JSON that cannot end its <script> block
///
/// The page itself builds its rows with `textContent`, never markup, and makes the same
/// characters visible as `DisplayText` does (its `shown` function).
package enum ReportHTML {
    /// `text` for HTML element content or a quoted attribute value: `&`, `<`, `>`, `"` and `'`
    /// as character references, after the characters `DisplayText` escapes (controls, U+2028,
    /// U+2029, bidi and invisible format characters) are written as visible escapes.
    ///
    /// - Complexity: O(n) in the length of `text`.
    package static func escaped(_ text: some StringProtocol) -> String {
        let visible = DisplayText.escaped(text)
        guard visible.utf8.contains(where: { [0x26, 0x3C, 0x3E, 0x22, 0x27].contains($0) }) else { return visible }
        var out = ""
        out.reserveCapacity(visible.utf8.count + 16)
        for character in visible.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// Encoded JSON for the inside of a `<script type="application/json">` block: `<`, `>` and
    /// `&` written `\u003C`, `\u003E`, `\u0026`, so no `</script>` or `<!--` can appear in it,
    /// whatever its strings hold. (They can only occur inside strings, so the JSON's meaning is
    /// unchanged.) Expects JSON that went through `DisplayText.escapedJSON` (as `ManifestJSON`
    /// writes it), so U+2028 and U+2029 are escaped already.
    ///
    /// - Complexity: O(n) in the size of `json`.
    package static func scriptData(_ json: Data) -> Data {
        json.withUnsafeBytes { raw in
            guard raw.contains(where: { $0 == 0x3C || $0 == 0x3E || $0 == 0x26 }) else { return json }
            var out: [UInt8] = []
            out.reserveCapacity(raw.count + 32)
            for byte in raw {
                switch byte {
                case 0x3C: out += [0x5C, 0x75, 0x30, 0x30, 0x33, 0x43]  // \u003C
                case 0x3E: out += [0x5C, 0x75, 0x30, 0x30, 0x33, 0x45]  // \u003E
                case 0x26: out += [0x5C, 0x75, 0x30, 0x30, 0x32, 0x36]  // \u0026
                default: out.append(byte)
                }
            }
            return Data(out)
        }
    }
}
