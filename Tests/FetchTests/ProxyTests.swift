import Foundation
import TestSupport
import Testing

@testable import Fetch

/// `FetchPolicy.proxy` against a loopback forward proxy (`TestForwardProxy`): requests go
/// through it, and with private networks refused the guard judges the target before anything
/// reaches the proxy. The proxy relays to loopback only and refuses every other destination, so
/// a broken guard could never make these tests connect off the machine.
@Suite("Forward proxy", .ownThread)
struct ProxyTests {
    private func proxiedPolicy(
        _ proxy: TestForwardProxy, _ adjust: (inout FetchPolicy) -> Void = { _ in }
    ) -> FetchPolicy {
        loopbackPolicy { policy in
            policy.allowPrivateNetworks = false
            policy.connectTimeout = .seconds(3)
            policy.proxy = proxy.url
            adjust(&policy)
        }
    }

    /// `proxiedPolicy` with the loopback origin's own address exempt from the guard (the
    /// allowlist tests use), so it stands for a public origin.
    private func proxiedPolicy(_ proxy: TestForwardProxy, exempting origin: TestHTTPServer) -> FetchPolicy {
        proxiedPolicy(proxy) { $0.allowedPrivateAddressesForTesting = ["127.0.0.1:\(origin.port)"] }
    }

    private static func originAndProxy() throws -> (TestHTTPServer, TestForwardProxy) {
        (try TestHTTPServer(), try TestForwardProxy())
    }

    private static func stop(_ origin: TestHTTPServer, _ proxy: TestForwardProxy) {
        proxy.stop()
        origin.stop()
    }

    /// With private networks refused, an allowed target goes through the proxy, whose own
    /// (loopback) address the guard lets through: the proxy saw the absolute URL, the origin
    /// the request.
    @Test func anAllowedTargetGoesThroughTheProxy() async throws {
        let (origin, proxy) = try Self.originAndProxy()
        defer { Self.stop(origin, proxy) }
        let client = HTTPClient(policy: proxiedPolicy(proxy, exempting: origin))
        let url = origin.url("/ok")
        let response = try await client.fetch(url)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello, world\n")
        #expect(proxy.requests == [.init(method: "GET", target: url)])
        #expect(origin.hits("/ok") == 1)
    }

    /// Private targets, by address or by a name that resolves to one here, are refused before
    /// anything is sent: the proxy sees no request at all.
    @Test(arguments: [
        ("http://10.0.0.1/cat.jpg", "10.0.0.1", "private (RFC 1918), 10.0.0.0/8"),
        ("http://192.168.1.20:8080/cat.jpg", "192.168.1.20", "private (RFC 1918), 192.168.0.0/16"),
        ("https://169.254.169.254/latest/meta-data/", "169.254.169.254", "link-local (cloud metadata), 169.254.169.254/32"),
        ("http://localhost:9/ok", "", "loopback"),
    ])
    func aPrivateTargetNeverReachesTheProxy(url: String, address: String, rule: String) async throws {
        let proxy = try TestForwardProxy()
        defer { proxy.stop() }
        let client = HTTPClient(policy: proxiedPolicy(proxy))
        let error = await fetchError(client, url)
        guard case .addressRefused(let refusedURL, let refused, let named)? = error else {
            Issue.record("expected addressRefused for \(url), got \(String(describing: error))")
            return
        }
        #expect(refusedURL == url)
        if !address.isEmpty { #expect(refused == address) }
        #expect(named.hasPrefix(rule), "\(refused): \(named)")
        #expect(error?.setting == .allowPrivateNetworks)
        #expect(proxy.requests.isEmpty)
    }

    /// A redirect from an allowed origin to a private address is judged at its hop, before the
    /// proxy is asked for it.
    @Test func aRedirectToAPrivateTargetIsRefusedAtItsHop() async throws {
        let (origin, proxy) = try Self.originAndProxy()
        defer { Self.stop(origin, proxy) }
        let client = HTTPClient(policy: proxiedPolicy(proxy, exempting: origin))
        let target = "http://10.1.2.3/secret"
        let first = origin.url("/redirect-to?url=\(target)")
        let error = await fetchError(client, first)
        #expect(error == .addressRefused(url: target, address: "10.1.2.3", rule: "private (RFC 1918), 10.0.0.0/8"))
        #expect(proxy.requests == [.init(method: "GET", target: first)])
    }

    /// An https target goes through a tunnel: the proxy is asked to CONNECT to host and port.
    /// This one refuses (403), which is the proxy's answer, not a broken connection: asked once.
    @Test func anHTTPSTargetIsTunnelled() async throws {
        let proxy = try TestForwardProxy()
        defer { proxy.stop() }
        let client = HTTPClient(policy: proxiedPolicy(proxy) { $0.allowPrivateNetworks = true })
        let error = await fetchError(client, "https://127.0.0.1:9/cat.jpg")
        #expect(proxy.requests == [.init(method: "CONNECT", target: "127.0.0.1:9")])
        guard case .transferFailed(_, _, let message)? = error else {
            Issue.record("expected transferFailed, got \(String(describing: error))")
            return
        }
        #expect(message == "the proxy answered HTTP 403 to CONNECT: it refused the tunnel")
        #expect(error?.isRetryable == false)
    }

    /// A host in `noProxy` is reached directly, through the connect-time guard.
    @Test func aHostInNoProxyIsReachedDirectly() async throws {
        let (origin, proxy) = try Self.originAndProxy()
        defer { Self.stop(origin, proxy) }
        let client = HTTPClient(policy: proxiedPolicy(proxy) { $0.noProxy = ["127.0.0.1"] })
        let error = await fetchError(client, origin.url("/ok"))
        #expect(error == .addressRefused(url: origin.url("/ok"), address: "127.0.0.1", rule: "loopback, 127.0.0.0/8"))
        #expect(proxy.requests.isEmpty)

        let allowed = HTTPClient(
            policy: proxiedPolicy(proxy) {
                $0.noProxy = ["127.0.0.1"]
                $0.allowPrivateNetworks = true
            })
        #expect(try await allowed.fetch(origin.url("/ok")).status == 200)
        #expect(proxy.requests.isEmpty)
        #expect(origin.hits("/ok") == 1)
    }

    /// A proxy that is no http or https URL fails the fetch before any connection.
    @Test func aProxyOfAnotherSchemeIsRefused() async throws {
        var policy = loopbackPolicy()
        policy.proxy = URL(string: "socks5://127.0.0.1:1080")
        #expect(policy.proxyProblem?.hasPrefix("FetchPolicy.proxy must be an http:// or https:// URL") == true)
        let error = await fetchError(HTTPClient(policy: policy), "http://127.0.0.1:9/ok")
        guard case .transferFailed(_, 43, _)? = error else {
            Issue.record("expected transferFailed 43, got \(String(describing: error))")
            return
        }
    }

    /// The environment is read only when asked, as curl reads it.
    @Test func theEnvironmentIsAnOptIn() {
        let environment = [
            "http_proxy": "http://plain.proxy:3128", "HTTP_PROXY": "http://ignored:1",
            "HTTPS_PROXY": "http://secure.proxy:3128", "no_proxy": "internal.example, .corp",
        ]
        var policy = FetchPolicy()
        #expect(policy.proxyURL(for: "http://a.example/x", environment: environment) == nil)
        policy.proxyFromEnvironment = true
        #expect(policy.proxyURL(for: "http://a.example/x", environment: environment) == "http://plain.proxy:3128")
        #expect(policy.proxyURL(for: "https://a.example/x", environment: environment) == "http://secure.proxy:3128")
        #expect(policy.proxyURL(for: "https://img.internal.example/x", environment: environment) == nil)
        #expect(policy.proxyURL(for: "https://a.corp/x", environment: environment) == nil)
        #expect(policy.proxyURL(for: "http://a.example/x", environment: ["ALL_PROXY": "http://all:1"]) == "http://all:1")
        // HTTP_PROXY alone is not read for http (a CGI request can set it).
        #expect(policy.proxyURL(for: "http://a.example/x", environment: ["HTTP_PROXY": "http://ignored:1"]) == nil)
        // An explicit proxy wins.
        policy.proxy = URL(string: "http://explicit:8080")
        #expect(policy.proxyURL(for: "http://a.example/x", environment: environment) == "http://explicit:8080")
    }

    @Test(arguments: [
        ("img.example.com", ["example.com"], true),
        ("example.com", [".example.com"], true),
        ("badexample.com", ["example.com"], false),
        ("IMG.Example.COM", ["example.com:443"], true),
        ("10.0.0.1", ["10.0.0.1"], true),
        ("::1", ["[::1]"], true),
        ("anything", ["*"], true),
        ("a.example", [], false),
    ])
    func noProxyPatterns(host: String, patterns: [String], bypassed: Bool) {
        #expect(FetchPolicy.bypasses(host: host, patterns: patterns) == bypassed)
    }
}
