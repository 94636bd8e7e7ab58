import Foundation
import Testing

@testable import Fetch

/// A policy for tests against the loopback server: private networks allowed, short waits.
func loopbackPolicy(_ adjust: (inout FetchPolicy) -> Void = { _ in }) -> FetchPolicy {
    var policy = FetchPolicy()
    policy.allowPrivateNetworks = true
    policy.connectTimeout = .seconds(2)
    policy.deadline = .seconds(10)
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
