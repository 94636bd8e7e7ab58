import Testing

@testable import MediaTypes

/// What bytes that are no media look like, for the refusal that says so.
@Suite("Unknown bytes: what they look like")
struct UnknownBytesTests {
    @Test(arguments: [
        ("<!DOCTYPE html>\n<html><body>404</body></html>", UnknownBytes.Kind.html),
        ("\u{FEFF}  <HTML lang=en><HEAD><TITLE>Sign in</TITLE>", .html),
        ("<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head/>", .html),
        ("<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code></Error>", .xml),
        ("{\"error\":\"expired\"}", .json),
        ("  [1, 2, 3]", .json),
        ("Access denied\r\n", .text),
        ("Zürich, 写真\n", .text),
        ("", .empty),
    ])
    func textKinds(text: String, kind: UnknownBytes.Kind) {
        #expect(UnknownBytes.Kind(Array(text.utf8)) == kind)
    }

    @Test func binaryKinds() {
        #expect(UnknownBytes.Kind([0x50, 0x4B, 0x03, 0x04, 0x14, 0x00]) == .zip)
        #expect(UnknownBytes.Kind([0x1F, 0x8B, 0x08, 0x00]) == .gzip)
        #expect(UnknownBytes.Kind([0x00, 0x01, 0x02, 0xFF, 0xFE]) == .binary)
        #expect(UnknownBytes.Kind(Array("text\u{0}with a NUL".utf8)) == .binary)
        // A character cut by the scan limit is still text; invalid UTF-8 is not.
        let long = Array(String(repeating: "a", count: UnknownBytes.scanLimit - 1).utf8) + Array("é".utf8)
        #expect(UnknownBytes.Kind(long) == .text)
        #expect(UnknownBytes.Kind([0x61, 0x62, 0xC3, 0x28, 0x61]) == .binary)
    }

    @Test func startIsEscaped() {
        #expect(UnknownBytes.start(of: Array("<!DOCTYPE html>\n<html>".utf8)) == "<!DOCTYPE html>\\n")
        #expect(UnknownBytes.start(of: [0x89, 0x41, 0x1B]) == "\\x89A\\u{1B}")
    }

    @Test func everyKindHasAPhrase() {
        #expect(Set(UnknownBytes.Kind.allCases.map(\.phrase)).count == UnknownBytes.Kind.allCases.count)
        #expect(UnknownBytes.Kind.html.phrase == "an HTML page")
    }
}
