import Foundation
import TestSupport
import Testing

@testable import Fetch

/// Retry-After's HTTP-date forms, parsed by hand since the `http` fuzz harness found
/// `DateFormatter.date(from:)` leaking on hostile header values.
@Suite("Retry-After HTTP-dates") struct RetryAfterTests {
    /// 1994-11-06 08:49:37 UTC, the RFC's example.
    static let example = Date(timeIntervalSince1970: 784_111_777)

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func threeFormsOfTheSameInstant(text: String) {
        #expect(HTTPDate.parse(text, now: Self.example) == Self.example)
    }

    @Test func delayIsTheDistanceFromNow() {
        let now = Self.example.addingTimeInterval(-90)
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: now) == .seconds(90))
        #expect(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: Self.example.addingTimeInterval(5)) == .zero)
    }

    @Test func leapYearsAndMonthEnds() {
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT") == Date(timeIntervalSince1970: 951_782_400))
        #expect(HTTPDate.parse("Thu, 31 Dec 2099 23:59:59 GMT") == Date(timeIntervalSince1970: 4_102_444_799))
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
    }

    @Test func twoDigitYearsStayWithinFiftyYears() {
        let now = Date(timeIntervalSince1970: 1_790_000_000)  // 2026
        #expect(HTTPDate.parse("Friday, 01-Jan-27 00:00:00 GMT", now: now) == Date(timeIntervalSince1970: 1_798_761_600))
        #expect(HTTPDate.parse("Thursday, 01-Jan-81 00:00:00 GMT", now: now) == Date(timeIntervalSince1970: 347_155_200))
    }

    @Test(arguments: [
        "", "soon", "Sun, 30 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT",
        "Sun, 00 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov 116 08:49:37 1994",
        "Sun, 06 Nov 1994 08:49:37 GMT \u{0}", "Sün, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov +994 08:49:37 GMT",
    ])
    func malformedDatesAreNil(text: String) {
        #expect(HTTPDate.parse(text) == nil)
        #expect(RetryAfter.delay(from: text) == nil)
    }

    /// The fuzz input behind the fix (a non-ASCII header value).
    @Test func fuzzRegressionInputsAreNil() throws {
        let folder = Corpus.testImages.appendingPathComponent("regressions/http")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.contains("leak-dateformatter-4f3fb394.txt"))
        for name in names {
            let text = String(decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
            #expect(RetryAfter.delay(from: text) == nil, "\(name)")
        }
    }
}
