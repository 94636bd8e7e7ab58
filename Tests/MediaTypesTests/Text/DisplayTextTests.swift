import Foundation
import Testing

@testable import MediaTypes

@Suite("Display text")
struct DisplayTextTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let input: String
        let shown: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "ESC sequence", input: "a\u{1B}[2Jb", shown: #"a\u{1B}[2Jb"#),
        Case(name: "newline forging a log line", input: "x\n[ok] fine", shown: #"x\n[ok] fine"#),
        Case(name: "CR and tab", input: "a\rb\tc", shown: #"a\rb\tc"#),
        Case(name: "NUL and BEL", input: "\u{0}\u{7}", shown: #"\u{00}\u{07}"#),
        Case(name: "DEL", input: "a\u{7F}", shown: #"a\u{7F}"#),
        Case(name: "C1 CSI and NEL", input: "\u{9B}31m\u{85}", shown: #"\u{9B}31m\u{85}"#),
        Case(name: "line and paragraph separators", input: "a\u{2028}b\u{2029}", shown: #"a\u{2028}b\u{2029}"#),
        Case(name: "right-to-left override", input: "photo\u{202E}gpj.exe", shown: #"photo\u{202E}gpj.exe"#),
        Case(
            name: "bidi isolates and marks", input: "\u{2066}\u{2067}\u{2068}\u{2069}\u{200E}\u{200F}\u{061C}",
            shown: #"\u{2066}\u{2067}\u{2068}\u{2069}\u{200E}\u{200F}\u{61C}"#),
        Case(
            name: "bidi embeddings", input: "\u{202A}\u{202B}\u{202C}\u{202D}",
            shown: #"\u{202A}\u{202B}\u{202C}\u{202D}"#),
        Case(
            name: "zero-width characters", input: "pay\u{200B}pal\u{200C}\u{200D}\u{2060}\u{FEFF}",
            shown: #"pay\u{200B}pal\u{200C}\u{200D}\u{2060}\u{FEFF}"#),
        Case(name: "accents kept", input: "Zürich café", shown: "Zürich café"),
        Case(name: "CJK kept", input: "写真/東京.jpg", shown: "写真/東京.jpg"),
        Case(name: "emoji kept", input: "cat 🐈 😀", shown: "cat 🐈 😀"),
        Case(name: "backslash kept", input: #"C:\photos\a.jpg"#, shown: #"C:\photos\a.jpg"#),
        Case(
            name: "plain ASCII kept", input: "https://cdn.example.com/a.png?x=1",
            shown: "https://cdn.example.com/a.png?x=1"),
    ]

    @Test(arguments: cases)
    func escaped(_ c: Case) {
        #expect(DisplayText.escaped(c.input) == c.shown)
    }

    @Test(arguments: cases)
    func escapingTwiceChangesNothing(_ c: Case) {
        let once = DisplayText.escaped(c.input)
        #expect(DisplayText.escaped(once) == once)
    }

    @Test(arguments: cases)
    func bytesOfValidUTF8AreEscapedLikeText(_ c: Case) {
        #expect(DisplayText.escaped(bytes: Array(c.input.utf8)) == c.shown)
    }

    @Test func escapedTextHoldsOnlyPrintableCharacters() {
        // Every scalar of the BMP and the first supplementary plane, one string: nothing that
        // `isEscaped` names survives, and nothing below U+0020 or in DEL/C1.
        var all = String.UnicodeScalarView()
        for value in UInt32(0)...0x1_FFFF {
            if let scalar = Unicode.Scalar(value) { all.append(scalar) }
        }
        let shown = DisplayText.escaped(String(all))
        #expect(!shown.unicodeScalars.contains(where: DisplayText.isEscaped))
        #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    @Test func substringsAreAccepted() {
        let line = "ok\u{1B}[0m rest"
        #expect(DisplayText.escaped(line.prefix(5)) == #"ok\u{1B}[0"#)
    }

    @Test(arguments: [
        ([0x49, 0x48, 0x89, 0x52] as [UInt8], #"IH\x89R"#),
        ([0xFF, 0xFE], #"\xFF\xFE"#),
        ([0xC3], #"\xC3"#),  // a lead byte with nothing after it
        ([0xC3, 0x28], #"\xC3("#),  // a lead byte followed by ASCII
        ([0xC0, 0xAF], #"\xC0\xAF"#),  // overlong "/"
        ([0xED, 0xA0, 0x80], #"\xED\xA0\x80"#),  // a UTF-16 surrogate
        ([0xF4, 0x90, 0x80, 0x80], #"\xF4\x90\x80\x80"#),  // past U+10FFFF
        ([0xE5, 0x86, 0x99, 0x1B], #"写\u{1B}"#),
        ([0xC2, 0x9B], #"\u{9B}"#),  // C1 CSI, well-formed
        ([], ""),
    ])
    func invalidUTF8BytesShownAsHex(bytes: [UInt8], shown: String) {
        #expect(DisplayText.escaped(bytes: bytes) == shown)
    }

    @Test func byteReaderDisplayTextEscapesAChunkName() throws {
        let reader = ByteReader([0x1B, 0x5B, 0x32, 0x4A, 0x89])
        #expect(reader.displayText(at: 0, count: 4) == #"\u{1B}[2J"#)
        #expect(reader.displayText(at: 3, count: 4) == #"J\x89"#)  // clamped to the bytes there are
        #expect(reader.displayText(at: 9, count: 4) == "")
        #expect(try reader.ascii(at: 0, count: 4) == "\u{1B}[2J")  // raw, for comparisons only
    }

    // MARK: JSON

    @Test func foundationLeavesTheseRawInJSON() throws {
        // Why `escapedJSON` exists: JSONEncoder on Linux escapes only U+0000-U+001F.
        let raw = try JSONEncoder().encode(["a\u{2028}b\u{85}c\u{202E}"])
        #expect(String(decoding: raw, as: UTF8.self).unicodeScalars.contains("\u{2028}"))
    }

    @Test func escapedJSONWritesSeparatorsAndControlsAsUnicodeEscapes() throws {
        let text = "a\u{2028}b\u{2029}c\u{85}d\u{202E}e\u{FEFF}f\u{1B}g Zürich 写真 😀"
        let encoded = DisplayText.escapedJSON(try JSONEncoder().encode(["value": text]))
        let json = String(decoding: encoded, as: UTF8.self)
        #expect(json.contains(#"a\u2028b\u2029c\u0085d\u202Ee\uFEFFf\u001bg Zürich 写真 😀"#))
        #expect(!json.unicodeScalars.contains(where: DisplayText.isEscaped))
        // Lossless: decoding gives the same string back.
        let decoded = try JSONDecoder().decode([String: String].self, from: encoded)
        #expect(decoded["value"] == text)
    }

    @Test func escapedJSONLeavesASCIIAlone() throws {
        let encoded = try JSONEncoder().encode(["url": "https://x.test/a.png", "n": "1"])
        #expect(DisplayText.escapedJSON(encoded) == encoded)
    }
}

/// Claims from a server or a payload quoted in messages: escaped.
@Suite("Display text in claim messages")
struct ClaimTextTests {
    @Test func strictMismatchEscapesTheContentType() throws {
        let claim = TypeClaim(.contentType, "image/gif; x=\u{1B}[2J\n[ok] forged")
        let error = try #require(throws: TypeMismatch.self) {
            try TypeReconciler.reconcile(.png, claims: [claim], strict: true)
        }
        #expect(error.description.hasPrefix(#"Content-Type "image/gif; x=\u{1B}[2J\n[ok] forged" says GIF"#))
        #expect(error.claim.value == claim.value)  // the value itself stays as sent
    }

    @Test func unrecognisedMediaTypeWarningIsEscaped() throws {
        let r = try TypeReconciler.reconcile(
            .png, claims: [TypeClaim(.mediaType, "\u{1B}[31mred\u{202E}")], strict: true)
        #expect(r.warnings == [#"unrecognised media_type '\u{1B}[31mred\u{202E}'; going by the bytes (png)"#])
    }
}

@Suite("URLs without credentials")
struct URLCredentialsTests {
    @Test(arguments: [
        ("https://u:secret@cdn.example.com/a.jpg", "https://***@cdn.example.com/a.jpg"),
        ("http://user@cdn.example.com:8080/a.jpg?x=1", "http://***@cdn.example.com:8080/a.jpg?x=1"),
        ("HTTPS://a:b@c@host/x", "HTTPS://***@host/x"),
        ("https://u:p@host", "https://***@host"),
        ("https://u:p@host#frag", "https://***@host#frag"),
        ("https://u:p@host\\@evil/x", "https://***@host\\@evil/x"),
        ("https://cdn.example.com/a@2x.jpg", "https://cdn.example.com/a@2x.jpg"),
        ("https://cdn.example.com/?mail=a@b", "https://cdn.example.com/?mail=a@b"),
        ("list.txt", "list.txt"),
        ("mailto:someone@example.com", "mailto:someone@example.com"),
        ("", ""),
    ])
    func theUserInformationIsReplaced(url: String, shown: String) {
        #expect(DisplayText.withoutCredentials(url) == shown)
    }
}
