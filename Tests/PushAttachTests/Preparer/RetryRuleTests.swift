import Foundation
import Testing

import PushAttach

/// `isRetryable` is one rule: the download's error and the library's error built from it agree on
/// every case (501 and 505 are not retryable, timeouts are).
struct RetryRuleTests {
    /// One retry rule: the library's error says what the download's error says, case by case.
    @Test func oneRetryRuleForDownloadsAndCalls() {
        let u = "https://cdn.example.com/a.jpg"
        let cases: [(FetchError, Bool)] = [
            (.httpStatus(url: u, status: 503), true), (.httpStatus(url: u, status: 500), true),
            (.httpStatus(url: u, status: 429), true), (.httpStatus(url: u, status: 408), true),
            (.httpStatus(url: u, status: 501), false), (.httpStatus(url: u, status: 505), false),
            (.httpStatus(url: u, status: 404), false), (.httpStatus(url: u, status: 401), false),
            (.timedOut(url: u, what: "deadline"), true), (.connectionFailed(url: u, message: "reset"), true),
            (.transferFailed(url: u, code: 6, message: "could not resolve"), true),
            (.transferFailed(url: u, code: 7, message: "other"), false),
            (.spoolBudgetExhausted(url: u, needed: 2, budget: 1), true),
            (.tooLarge(url: u, cap: 1, declared: 2), false), (.tlsFailed(url: u, message: "cert"), false),
            (.addressRefused(url: u, address: "10.0.0.1", rule: "private"), false),
            (.hostNotAllowed(url: u, host: "x"), false), (.cancelled(url: u), false),
        ]
        for (fetch, retryable) in cases {
            #expect(fetch.isRetryable == retryable, "\(fetch)")
            #expect(AttachmentError(fetch, url: URL(string: u)!).isRetryable == retryable, "\(fetch)")
        }
    }
}
