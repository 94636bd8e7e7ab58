import Foundation
import Testing

@testable import Fetch

@Suite("Content-Disposition and Retry-After")
struct ContentDispositionTests {
    @Test(arguments: [
        (#"attachment; filename="cat.jpg""#, "cat.jpg"),
        ("attachment; filename=cat.jpg", "cat.jpg"),
        ("attachment;filename=cat.jpg;size=12", "cat.jpg"),
        (#"attachment; filename="../../etc/passwd""#, "../../etc/passwd"),
        (#"inline; filename="a \"quoted\" name.png""#, #"a "quoted" name.png"#),
        (#"attachment; filename="semi;colon.gif"; x=1"#, "semi;colon.gif"),
        ("attachment; filename*=UTF-8''%E7%8C%AB.jpg", "猫.jpg"),
        (#"attachment; filename="fallback.jpg"; filename*=UTF-8''%E2%82%AC%20rates.jpg"#, "€ rates.jpg"),
        (#"attachment; filename*=utf-8'en'na%C3%AFve.png; filename="naive.png""#, "naïve.png"),
        ("attachment; filename*=ISO-8859-1''caf%E9.jpg", "café.jpg"),
        ("ATTACHMENT; FILENAME=Upper.JPG", "Upper.JPG"),
        (#"attachment; filename*=UTF-8''%2E%2E%2Fx; filename="y""#, "../x"),
        // A broken extended value falls back to the plain one.
        (#"attachment; filename*=UTF-8''%ZZ; filename="plain.jpg""#, "plain.jpg"),
        (#"attachment; filename*=BOGUS''x.jpg; filename="plain.jpg""#, "plain.jpg"),
        (#"attachment; filename*=UTF-8''%FF%FE; filename="plain.jpg""#, "plain.jpg"),
        // From the Pipeline's former copy of this parser.
        (#"inline; filename="a \"quoted\" name.png"; size=10"#, #"a "quoted" name.png"#),
        (#"attachment; filename="fallback.jpg"; filename*=UTF-8''caf%C3%A9.jpg"#, "café.jpg"),
        ("attachment; FILENAME*=iso-8859-1'en'%E9t%E9.gif", "été.gif"),
    ])
    func filename(header: String, expected: String) {
        #expect(ContentDisposition.filename(from: header) == expected)
    }

    @Test(arguments: [
        "attachment", "inline", "", ";;;", "attachment; filename=", #"attachment; filename="""#,
        "attachment; filename*=UTF-8''", "attachment; name=x",
        "inline; size=3", "attachment; filename*=UTF-8''%FF%FE",
    ])
    func noFilename(header: String) {
        #expect(ContentDisposition.filename(from: header) == nil)
    }

    @Test func unterminatedQuoteKeepsItsContent() {
        #expect(ContentDisposition.filename(from: #"attachment; filename="unterminated"#) == "unterminated")
    }

    @Test func dispositionType() {
        #expect(ContentDisposition.type(of: "Attachment; filename=x") == "attachment")
        #expect(ContentDisposition.type(of: "") == nil)
    }

    /// Malformed headers give no name, or the characters that were there: a lone escape at the
    /// end is kept as itself, an escaped character is taken literally (a `\\"` never ends a quoted
    /// value), and a filename after 500 such broken parameters is still found.
    @Test(arguments: [
        ("\"", nil), ("\\", nil), ("=;=;=", nil), ("a; filename*=''%", nil), ("a; filename*=UTF-8''%F", nil),
        ("a; filename=\"\\", "\\"), (String(repeating: "; x=\"\\", count: 500), nil),
        (String(repeating: "; x=\"\\", count: 500) + "\"; filename=a.jpg", "a.jpg"),
        ("a; x=\"\\\"; filename=b.jpg\"; filename=c.jpg", "c.jpg"),
    ] as [(String, String?)])
    func hostileInput(header: String, expected: String?) {
        #expect(ContentDisposition.filename(from: header) == expected)
    }

    @Test func retryAfterForms() throws {
        #expect(RetryAfter.delay(from: "1") == .seconds(1))
        #expect(RetryAfter.delay(from: " 120 ") == .seconds(120))
        #expect(RetryAfter.delay(from: "soon") == nil)
        let now = try #require(ISO8601DateFormatter().date(from: "2015-10-21T07:27:58Z"))
        #expect(RetryAfter.delay(from: "Wed, 21 Oct 2015 07:28:00 GMT", now: now) == .seconds(2))
        #expect(RetryAfter.delay(from: "Wed, 21 Oct 2015 07:00:00 GMT", now: now) == .zero)
    }
}
