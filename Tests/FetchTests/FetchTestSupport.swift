import Foundation
import TestSupport
import Testing

@testable import Fetch

/// A policy for tests against the loopback server: private networks allowed, short retry
/// delays. No short limits: tests that are not about timing must not depend on how loaded the
/// machine is (sanitizers, one core shared with CPU-bound suites), and a request held at the
/// server (`TestHTTPServer.hold`) may wait as long as the test takes to release it, so the
/// deadline is long and the low-speed check is off. A test of a timeout sets that one limit
/// short, against a held route that cannot complete before the client has returned.
func loopbackPolicy(_ adjust: (inout FetchPolicy) -> Void = { _ in }) -> FetchPolicy {
    var policy = FetchPolicy()
    policy.allowPrivateNetworks = true
    policy.connectTimeout = .seconds(30)
    policy.deadline = HangGuard.wait
    policy.lowSpeedLimit = 0
    policy.retryBaseDelay = .milliseconds(20)
    adjust(&policy)
    return policy
}

/// The error a fetch ends with, or nil when it succeeded.
func fetchError(_ client: HTTPClient, _ url: String) async -> FetchError? {
    do {
        _ = try await client.fetch(url)
        return nil
    } catch {
        return error
    }
}

extension FetchError {
    /// The error with a `tooLarge`'s first bytes dropped, for comparing the rest of it.
    var withoutFirstBytes: FetchError {
        if case .tooLarge(let url, let cap, let declared, _) = self { return .tooLarge(url: url, cap: cap, declared: declared) }
        return self
    }
}
