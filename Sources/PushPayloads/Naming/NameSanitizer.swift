import Foundation

/// Turns an untrusted suggested filename into a safe `<name>` part of an attachment file name.
///
///     NameSanitizer.baseName("../../etc/passwd")        // "passwd"
///     NameSanitizer.baseName(".hidden photo.JPG")       // "hidden-photo"
///     NameSanitizer.baseName("\u{202E}gnp.exe")         // "gnp"
///     NameSanitizer.baseName("")                        // "attachment"
///
/// Rules, in order: keep only the last component after `/` or `\`; turn tab/newline/CR into
/// spaces and drop other control characters (C0, DEL, C1), bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069), marks
/// U+200E/U+200F and BOM; normalise to NFC; strip the name's own extension (the real one is
/// added later); turn whitespace into `-`; replace anything but letters, marks, digits and
/// `- _ . + ~ ( ) @` with `_`; collapse runs of dots (no `..`) and of `-`/`_`; trim leading
/// dots, dashes and underscores and trailing dots, dashes, underscores. Empty → `attachment`.
/// The result is not yet length-capped: `AttachmentName` does that for the whole file name.
package enum NameSanitizer {
    package static let fallback = "attachment"

    package static func baseName(_ raw: String) -> String {
        var name = Substring(raw)
        if let cut = name.lastIndex(where: { $0 == "/" || $0 == "\\" }) {
            name = name[name.index(after: cut)...]
        }
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            if (0x09...0x0D).contains(scalar.value) {
                scalars.append(" ")  // tab, newline and friends are whitespace, not dropped
            } else if !isInvisibleOrControl(scalar) {
                scalars.append(scalar)
            }
        }
        var text = String(scalars).precomposedStringWithCanonicalMapping
        text = strippingExtension(text)

        var out = ""
        for character in text {
            if character.isWhitespace {
                out.append("-")
            } else if character == "." || isKept(character) {
                out.append(character)
            } else {
                out.append("_")
            }
        }
        out = collapsing(out)
        while let first = out.first, first == "." || first == "-" || first == "_" { out.removeFirst() }
        while let last = out.last, last == "." || last == "-" || last == "_" { out.removeLast() }
        return out.isEmpty ? fallback : out
    }

    package static func isInvisibleOrControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C, 0xFEFF: true
        default: scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
        }
    }

    private static func isKept(_ character: Character) -> Bool {
        if "-_+~()@".contains(character) { return true }
        return character.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
                true
            default: false
            }
        }
    }

    /// Drops a trailing `.ext` (1–16 characters, no spaces) unless the dot is the first character.
    private static func strippingExtension(_ text: String) -> String {
        guard let dot = text.lastIndex(of: "."), dot != text.startIndex else { return text }
        let ext = text[text.index(after: dot)...]
        guard (1...16).contains(ext.count), !ext.contains(where: \.isWhitespace) else { return text }
        return String(text[..<dot])
    }

    /// One dot for any run of dots, one separator for any run of `-`/`_` (keeping the first).
    private static func collapsing(_ text: String) -> String {
        var out = ""
        for character in text {
            if let last = out.last {
                if character == ".", last == "." { continue }
                if character == "-" || character == "_", last == "-" || last == "_" { continue }
            }
            out.append(character)
        }
        return out
    }
}
