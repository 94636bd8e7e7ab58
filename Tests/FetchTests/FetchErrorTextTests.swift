import Foundation
import TestSupport
import Testing

@testable import Fetch

/// Text a server controls (URLs, Location, libcurl's messages) never reaches a message raw.
@Suite("Fetch error text")
struct FetchErrorTextTests {
    static let hostile = "http://x\u{1B}[31mRED/\n[ok] \u{202E}gpj.exe\u{9B}2J"
    static let shown = #"http://x\u{1B}[31mRED/\n[ok] \u{202E}gpj.exe\u{9B}2J"#

    static let everyCase: [FetchError] = [
        .invalidURL(url: hostile),
        .unsupportedScheme(url: hostile, scheme: hostile),
        .hostNotAllowed(url: hostile, host: hostile),
        .addressRefused(url: hostile, address: "127.0.0.1", rule: "loopback, 127.0.0.0/8"),
        .tooManyRedirects(url: hostile, limit: 5),
        .badRedirect(url: hostile, status: 302, location: hostile),
        .httpStatus(url: hostile, status: 500),
        .tooLarge(url: hostile, cap: 10, declared: 20),
        .tooLarge(url: hostile, cap: 10, declared: nil),
        .timedOut(url: hostile, what: hostile),
        .connectionFailed(url: hostile, message: hostile),
        .tlsFailed(url: hostile, message: hostile),
        .cancelled(url: hostile),
        .transferFailed(url: hostile, code: 56, message: hostile),
    ]

    @Test(arguments: everyCase)
    func descriptionShowsOutsideTextEscaped(error: FetchError) {
        let text = error.description
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(!text.unicodeScalars.contains("\u{202E}"))
        #expect(text.contains(Self.shown))
        // The case keeps the URL as it was, for callers that match on it.
        #expect(error.url == Self.hostile)
    }

    @Test func unparseableLocationFromTheServerIsShownEscaped() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/loc") { _ in .redirect(to: "http://x\u{1B}[31mRED/") }
        let client = HTTPClient(policy: loopbackPolicy { $0.maxRetries = 0 })
        let url = server.url("/loc")
        let error = try #require(await fetchError(client, url))
        #expect(error == .badRedirect(url: url, status: 302, location: "http://x\u{1B}[31mRED/"))
        #expect(error.description.contains(#"an unusable Location "http://x\u{1B}[31mRED/""#))
        #expect(!error.description.unicodeScalars.contains("\u{1B}"))
    }
}
