import Foundation
import Testing

@testable import Fetch

/// A policy for tests against the loopback server: private networks allowed, short retry
/// delays. The deadlines are generous on purpose: tests that are not about timing must not
/// depend on how loaded the machine is (sanitizers, parallel suites); tests of timeouts set
/// their own short deadline against a route that takes far longer.
func loopbackPolicy(_ adjust: (inout FetchPolicy) -> Void = { _ in }) -> FetchPolicy {
    var policy = FetchPolicy()
    policy.allowPrivateNetworks = true
    policy.connectTimeout = .seconds(10)
    policy.deadline = .seconds(30)
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
