import Foundation

/// Text from outside (a server, a file, a payload) made safe to show a person: characters
/// that would act on a terminal or hide what the text says come out as visible escapes.
///
///     DisplayText.escaped("chunk '\u{1B}[2J'")         // #"chunk '\u{1B}[2J'"#
///     DisplayText.escaped("cat\n[ok] forged line")     // #"cat\n[ok] forged line"#, one line
///     DisplayText.escaped("photo\u{202E}gpj.exe")      // #"photo\u{202E}gpj.exe"#
///     DisplayText.escaped("Zürich/写真.jpg")            // "Zürich/写真.jpg", unchanged
///     DisplayText.escaped(bytes: [0x49, 0x48, 0x89])   // #"IH\x89"#
///
/// Escaped: C0 controls, DEL and C1 controls (`\n`, `\r`, `\t`, otherwise `\u{1B}`), line and
/// paragraph separators (U+2028, U+2029), bidi controls (U+200E, U+200F, U+061C, U+202A-U+202E,
/// U+2066-U+2069), zero-width and other invisible format characters (U+200B-U+200D, U+2060-U+2064,
/// U+206A-U+206F, U+FEFF, U+180E, U+FFF9-U+FFFB), and, from bytes, invalid UTF-8 (`\x89`).
/// Everything else, accents, CJK and emoji included, is kept as it is (an emoji sequence joined
/// by U+200D shows its joiners). Backslashes are kept too, so escaping twice changes nothing.
///
/// Use it wherever outside text enters a message for people; JSON output goes through
/// `escapedJSON(_:)` instead, which escapes the same characters losslessly.
public enum DisplayText {
    /// `url` with the user name and password of its authority (`user:password@`) replaced by
    /// `***`: the one form in which a URL is shown or written anywhere (console, manifest, report,
    /// error messages), so a credential given in a URL never leaves the process that fetches
    /// with it. Text that is not `scheme://authority…` is returned as it is.
    ///
    ///     DisplayText.withoutCredentials("https://u:secret@cdn.example/a.jpg")   // "https://***@cdn.example/a.jpg"
    ///     DisplayText.withoutCredentials("https://cdn.example/a@2x.jpg")         // unchanged: the @ is in the path
    ///
    /// - Complexity: O(n) in the length of `url`.
    public static func withoutCredentials(_ url: some StringProtocol) -> String {
        let scalars = Array(url.unicodeScalars)
        // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then "://".
        guard let first = scalars.first, first.isASCII, first.properties.isAlphabetic else { return String(url) }
        var at = 1
        while at < scalars.count, scalars[at].isASCII,
            scalars[at].properties.isAlphabetic || ("0"..."9").contains(scalars[at]) || "+-.".unicodeScalars.contains(scalars[at])
        {
            at += 1
        }
        guard at + 2 < scalars.count, scalars[at] == ":", scalars[at + 1] == "/", scalars[at + 2] == "/" else {
            return String(url)
        }
        let authorityStart = at + 3
        // The authority ends at the path, query or fragment (a backslash too, as browsers read it);
        // its user information ends at its last "@".
        let authorityEnd = scalars[authorityStart...].firstIndex { "/?#\\".unicodeScalars.contains($0) } ?? scalars.count
        guard let lastAt = scalars[authorityStart..<authorityEnd].lastIndex(of: "@") else { return String(url) }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[..<authorityStart])
        result.append(contentsOf: "***".unicodeScalars)
        result.append(contentsOf: scalars[lastAt...])
        return String(result)
    }

    /// `text` with every character listed above written as a visible escape.
    ///
    /// - Returns: `text` unchanged when nothing needed escaping.
    /// - Complexity: O(n) in the length of `text`.
    public static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: isEscaped) else { return String(text) }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if isEscaped(scalar) {
                result += escape(scalar)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `bytes` read as UTF-8, each byte that is not part of a valid sequence written `\xNN`,
    /// then escaped as `escaped(_:)` does. For header fields and chunk names, whose bytes are
    /// not known to be text.
    ///
    /// - Complexity: O(n) in the number of bytes.
    public static func escaped(bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var result = ""
        var i = 0
        while i < bytes.count {
            if let decoded = decodeScalar(bytes, at: i) {
                let scalar = decoded.scalar
                if isEscaped(scalar) { result += escape(scalar) } else { result.unicodeScalars.append(scalar) }
                i += decoded.length
            } else {
                result += "\\x" + hex(UInt32(bytes[i]), digits: 2)
                i += 1
            }
        }
        return result
    }

    /// Encoded JSON with the characters above written as `\uXXXX` where the encoder left them
    /// raw (Foundation escapes only U+0000-U+001F): U+2028 and U+2029 end a line for JavaScript
    /// and for some log readers, and the others act on a terminal showing the output. Decoding
    /// gives back the same strings. Only string contents can hold such characters, so the
    /// rewrite never touches the JSON's structure.
    ///
    ///     let line = DisplayText.escapedJSON(try JSONEncoder().encode(entry))
    ///
    /// - Returns: `json` itself when it is all ASCII (the common case).
    /// - Complexity: O(n) in the size of `json`.
    public static func escapedJSON(_ json: Data) -> Data {
        guard json.contains(where: { $0 >= 0x7F }) else { return json }
        var result = Data()
        result.reserveCapacity(json.count + 16)
        for scalar in String(decoding: json, as: UTF8.self).unicodeScalars {
            if scalar.value >= 0x7F, isEscaped(scalar) {
                result.append(contentsOf: "\\u\(hex(scalar.value, digits: 4))".utf8)
            } else {
                result.append(contentsOf: UTF8.encode(scalar)!)
            }
        }
        return result
    }

    /// Whether `escaped(_:)` writes `scalar` as an escape.
    public static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0, DEL, C1
        case 0x2028, 0x2029: true  // line and paragraph separators
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidi controls
        case 0x200B...0x200D, 0x2060...0x2064, 0x206A...0x206F, 0xFEFF, 0x180E, 0xFFF9...0xFFFB: true  // invisible
        default: false
        }
    }

    /// The well-formed UTF-8 sequence at `i` (no overlong forms, surrogates or values past
    /// U+10FFFF) and its length, or nil.
    private static func decodeScalar(_ bytes: [UInt8], at i: Int) -> (scalar: Unicode.Scalar, length: Int)? {
        let lead = bytes[i]
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0x00...0x7F: return (Unicode.Scalar(lead), 1)
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, second) = (3, 0xA0...0xBF)
        case 0xED: (length, second) = (3, 0x80...0x9F)
        case 0xE1...0xEF: length = 3
        case 0xF0: (length, second) = (4, 0x90...0xBF)
        case 0xF4: (length, second) = (4, 0x80...0x8F)
        case 0xF1...0xF3: length = 4
        default: return nil
        }
        guard i + length <= bytes.count, second.contains(bytes[i + 1]) else { return nil }
        var value = UInt32(lead) & (0xFF >> (length + 1))
        for k in 1..<length {
            guard k == 1 || (0x80...0xBF).contains(bytes[i + k]) else { return nil }
            value = value << 6 | UInt32(bytes[i + k] & 0x3F)
        }
        return Unicode.Scalar(value).map { ($0, length) }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        default: "\\u{\(hex(scalar.value, digits: 2))}"
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
