import Foundation
import TestSupport
import Testing

@testable import Fetch

@Suite("Connect-time SSRF guard", .ownThread)
struct SSRFTests {
    /// Private networks refused (the default). A refusal is immediate, so the connect timeout
    /// only bounds a broken guard: were an address let through, the connect would time out (a
    /// different error) instead of being refused, and the test would fail. The deadline stays
    /// `loopbackPolicy`'s long one: a redirect chain's deadline also counts time spent waiting
    /// to be resumed, which is not what these tests are about.
    private func guardedPolicy(_ adjust: (inout FetchPolicy) -> Void = { _ in }) -> FetchPolicy {
        loopbackPolicy { policy in
            policy.allowPrivateNetworks = false
            policy.connectTimeout = .seconds(3)
            adjust(&policy)
        }
    }

    @Test func loopbackIsRefusedWithTheRuleNamed() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: guardedPolicy())
        let url = server.url("/ok")
        let error = await fetchError(client, url)
        #expect(error == .addressRefused(url: url, address: "127.0.0.1", rule: "loopback, 127.0.0.0/8"))
        #expect(error?.isRetryable == false)
        #expect(
            error?.description.hasPrefix(
                "refused to connect to 127.0.0.1 (loopback, 127.0.0.0/8): private networks are not allowed; "
                    + "permit them with FetchPolicy.allowPrivateNetworks") == true)
        // The error carries the setting; the library spells it by its API, never as a flag.
        #expect(error?.setting == .allowPrivateNetworks)
        #expect(error?.description.contains("--") == false)
        #expect(server.hits("/ok") == 0)
    }

    /// A host outside the allowed ones is refused before any connection, and the message names
    /// the library's setting (the CLI shows `--allow-host` in its place).
    @Test func hostOutsideTheAllowedOnesNamesTheSetting() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy { $0.allowedHosts = ["cdn.example"] })
        let url = server.url("/ok")
        let error = await fetchError(client, url)
        #expect(error == .hostNotAllowed(url: url, host: "127.0.0.1"))
        #expect(
            error?.description
                == "host 127.0.0.1 of \(url) is not in the allowed hosts; allow the host with FetchPolicy.allowedHosts")
        #expect(error?.setting == .allowedHosts)
        #expect(server.hits("/ok") == 0)
    }

    @Test(arguments: [
        ("http://[::1]:PORT/ok", "loopback"),
        ("http://0.0.0.0:PORT/ok", "this network"),
        ("http://[::ffff:127.0.0.1]:PORT/ok", "loopback"),
        ("http://2130706433:PORT/ok", "loopback"),
        ("http://0x7f000001:PORT/ok", "loopback"),
        ("http://127.1:PORT/ok", "loopback"),
        ("http://localhost:PORT/ok", "loopback"),
        ("http://169.254.169.254/latest/meta-data/", "link-local (cloud metadata)"),
        ("http://[fe80::1]:PORT/", "link-local"),
        ("http://10.0.0.1:PORT/", "private (RFC 1918)"),
        ("http://100.64.0.1:PORT/", "carrier-grade NAT (RFC 6598)"),
    ])
    func privateDestinationsAreRefused(template: String, purpose: String) async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: guardedPolicy())
        let url = template.replacingOccurrences(of: "PORT", with: "\(server.port)")
        let error = await fetchError(client, url)
        guard case .addressRefused(_, let address, let rule)? = error else {
            Issue.record("expected addressRefused for \(url), got \(String(describing: error))")
            return
        }
        #expect(rule.hasPrefix(purpose + ","), "\(address): \(rule)")
        #expect(server.hits("/ok") == 0)
    }

    @Test func exemptFirstHopCannotRedirectToAnotherLoopbackPort() async throws {
        let server = try TestHTTPServer()
        let other = try TestHTTPServer()
        defer {
            server.stop()
            other.stop()
        }
        let client = HTTPClient(
            policy: guardedPolicy { $0.allowedPrivateAddressesForTesting = ["127.0.0.1:\(server.port)"] })
        // The exemption itself works.
        #expect(try await client.fetch(server.url("/ok")).status == 200)

        let target = other.url("/ok")
        let error = await fetchError(client, server.url("/redirect-to?url=\(target)"))
        #expect(error == .addressRefused(url: target, address: "127.0.0.1", rule: "loopback, 127.0.0.0/8"))
        #expect(other.hits("/ok") == 0)
    }

    @Test func exemptFirstHopCannotRedirectToCloudMetadata() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(
            policy: guardedPolicy { $0.allowedPrivateAddressesForTesting = ["127.0.0.1:\(server.port)"] })
        let target = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"
        let error = await fetchError(client, server.url("/redirect-to?url=\(target)"))
        #expect(
            error
                == .addressRefused(
                    url: target, address: "169.254.169.254", rule: "link-local (cloud metadata), 169.254.169.254/32"))
        #expect(server.hits("/redirect-to") == 1)
    }

    @Test func exemptFirstHopCannotRedirectToIPv6Loopback() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(
            policy: guardedPolicy { $0.allowedPrivateAddressesForTesting = ["127.0.0.1:\(server.port)"] })
        let target = "http://[::1]:\(server.port)/ok"
        let error = await fetchError(client, server.url("/redirect-to?url=\(target)"))
        #expect(error == .addressRefused(url: target, address: "::1", rule: "loopback, ::1/128"))
    }
}
