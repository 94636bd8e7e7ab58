import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Fetch

@Suite("HTTP client against the loopback server", .ownThread)
struct HTTPClientTests {
    @Test func okBodyAndHeaders() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy())
        let url = server.url("/ok")
        let response = try await client.fetch(url)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello, world\n")
        #expect(response.contentType == "text/plain; charset=utf-8")
        #expect(response.url == url)
        #expect(response.finalURL == url)
        #expect(response.redirects.isEmpty)
        #expect(response.attempts == 1)
        #expect(response.suggestedFilename == nil)
    }

    @Test func sendsTheUserAgent() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/ua") { request in .text(request.headers["user-agent"] ?? "none") }
        let client = HTTPClient(policy: loopbackPolicy())
        let response = try await client.fetch(server.url("/ua"))
        #expect(String(decoding: response.body, as: UTF8.self) == FetchPolicy().userAgent)
    }

    @Test func wrongContentTypePassesThroughReported() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + TestHTTPServer.pattern(200)
        server.route("/image") { _ in .bytes(png, contentType: "text/html") }
        server.route("/noext") { _ in .bytes(png, contentType: nil) }
        let client = HTTPClient(policy: loopbackPolicy())
        let wrong = try await client.fetch(server.url("/image"))
        #expect(wrong.contentType == "text/html")
        #expect(wrong.body == png)
        let none = try await client.fetch(server.url("/noext"))
        #expect(none.contentType == nil)
        #expect(none.body == png)
    }

    @Test func redirectChainUnderTheLimit() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy { $0.maxRedirects = 5 })
        let response = try await client.fetch(server.url("/redirect/5/ok"))
        #expect(response.redirects.count == 5)
        #expect(response.redirects.last == server.url("/ok"))
        #expect(response.finalURL == server.url("/ok"))
        #expect(String(decoding: response.body, as: UTF8.self) == "hello, world\n")
    }

    @Test func redirectChainOverTheLimit() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy { $0.maxRedirects = 5 })
        let error = await fetchError(client, server.url("/redirect/6/ok"))
        guard case .tooManyRedirects(_, let limit)? = error else {
            Issue.record("expected tooManyRedirects, got \(String(describing: error))")
            return
        }
        #expect(limit == 5)
        #expect(server.hits("/ok") == 0)
    }

    @Test func redirectWithoutLocationFails() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/bad") { _ in TestHTTPServer.Response(status: 302) }
        let client = HTTPClient(policy: loopbackPolicy())
        #expect(
            await fetchError(client, server.url("/bad"))
                == .badRedirect(url: server.url("/bad"), status: 302, location: nil))
    }

    @Test func contentDispositionFilenameIsReturnedRaw() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy())
        let response = try await client.fetch(server.url("/disposition"))
        #expect(response.suggestedFilename == "../../etc/passwd")
        #expect(response.contentDisposition == #"attachment; filename="../../etc/passwd""#)
    }

    /// The body stops after 100 of 1000 bytes and is held until the client has returned: only
    /// the deadline (the one short limit here; the low-speed check is off) can end the fetch.
    @Test func heldBodyPastTheDeadlineTimesOut() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let gate = server.hold("/held", sendingFirst: 100)
        let client = HTTPClient(policy: loopbackPolicy { $0.deadline = .seconds(2) })
        let start = ContinuousClock.now
        let error = await fetchError(client, server.url("/held"))
        let elapsed = ContinuousClock.now - start
        let held = await gate.wait { $0.arrived >= 1 }
        gate.open()
        guard case .timedOut(_, let what, _)? = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        #expect(!what.lowercased().contains("slow"), "the deadline fired, not the low-speed check: \(what)")
        #expect(error?.isRetryable == true, "a timeout may pass later")
        #expect(held?.passed == 0, "the route was still held when the client gave up")
        #expect(server.hits("/held") == 1, "a timeout is not retried within the call")
        #expect(elapsed < .seconds(120), "\(elapsed)")
    }

    /// Headers and 100 bytes, then nothing until the client has returned: the low-speed check
    /// (1000 B/s over 1 s) is the only short limit, so it is what ends the fetch.
    @Test func lowSpeedTransferIsAborted() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let gate = server.hold("/held", sendingFirst: 100)
        let client = HTTPClient(
            policy: loopbackPolicy { policy in
                policy.lowSpeedLimit = 1000
                policy.lowSpeedTime = .seconds(1)
            })
        let error = await fetchError(client, server.url("/held"))
        gate.open()
        guard case .timedOut(_, let what, _)? = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        #expect(what.lowercased().contains("slow"), "\(what)")
    }

    @Test func sequentialFetchesReuseTheConnection() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy(), maxConcurrent: 1)
        for size in [10, 20, 30, 40, 50] {
            #expect(try await client.fetch(server.url("/bytes?size=\(size)")).body.count == size)
        }
        #expect(server.connectionsAccepted == 1)
    }

    @Test func endlessBodyStopsAtTheCap() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy { $0.byteCap = 1_000_000 })
        let url = server.url("/endless")
        let error = await fetchError(client, url)
        #expect(error?.withoutFirstBytes == .tooLarge(url: url, cap: 1_000_000, declared: nil))
        #expect(server.hits("/endless") == 1)
        // The body's first bytes come with the error, so the caller can say what it was.
        guard case .tooLarge(_, _, _, let firstBytes)? = error else { return }
        #expect(firstBytes.count == FetchError.firstBytesKept)
    }

    @Test func aBodyRefusedByItsContentLengthHasNoFirstBytes() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy { $0.byteCap = 1_000 })
        let url = server.url("/bytes?size=2000")
        #expect(await fetchError(client, url) == .tooLarge(url: url, cap: 1_000, declared: 2_000, firstBytes: []))
    }

    @Test func declaredLengthOverTheCapIsRefusedEarly() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy { $0.byteCap = 1_000_000 })
        let url = server.url("/bytes?size=2000000")
        #expect(await fetchError(client, url)?.withoutFirstBytes == .tooLarge(url: url, cap: 1_000_000, declared: 2_000_000))
    }

    @Test func lyingShortContentLengthNeverDeliversMoreThanDeclared() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy { $0.byteCap = 1_000 })
        let response = try await client.fetch(server.url("/lying?declared=10&actual=100000"))
        #expect(response.body == TestHTTPServer.pattern(10))
    }

    @Test func lyingShortContentLengthOverTheCapStillAborts() async throws {
        // Declares less than the cap, then an error page streams past it: the count still catches it.
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/liar") { _ in
            TestHTTPServer.Response(status: 200, headers: [("Content-Type", "image/jpeg")], body: .endless)
        }
        let client = HTTPClient(policy: loopbackPolicy { $0.byteCap = 100_000 })
        let url = server.url("/liar")
        #expect(await fetchError(client, url)?.withoutFirstBytes == .tooLarge(url: url, cap: 100_000, declared: nil))
    }

    @Test func lyingLongContentLengthIsATruncation() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy())
        let error = await fetchError(client, server.url("/lying?declared=1000&actual=100"))
        guard case .connectionFailed? = error else {
            Issue.record("expected connectionFailed, got \(String(describing: error))")
            return
        }
        #expect(server.hits("/lying") == 3)
    }

    @Test func tightenedCapAppliesOnceTheTypeIsKnown() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(
            policy: loopbackPolicy { policy in
                policy.tightenCap = { first in first.count >= 64 && first.first == 1 ? 100 : nil }
            })
        let url = server.url("/bytes?size=5000")
        #expect(await fetchError(client, url)?.withoutFirstBytes == .tooLarge(url: url, cap: 100, declared: nil))
        // Under the tighter cap passes.
        let small = try await client.fetch(server.url("/bytes?size=90"))
        #expect(small.body.count == 90)
    }

    @Test func tightenedCapSeesAllOfAShortBody() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(
            policy: loopbackPolicy { policy in
                policy.tightenCap = { first in first.count == 50 ? 10 : nil }
            })
        let url = server.url("/bytes?size=50")
        #expect(await fetchError(client, url)?.withoutFirstBytes == .tooLarge(url: url, cap: 10, declared: nil))
    }

    @Test func connectionResetIsRetriedThenFails() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy { $0.maxRetries = 2 })
        let error = await fetchError(client, server.url("/reset?bytes=5000"))
        guard case .connectionFailed? = error else {
            Issue.record("expected connectionFailed, got \(String(describing: error))")
            return
        }
        #expect(error?.isRetryable == true)
        #expect(server.hits("/reset") == 3)
    }

    /// 501 and 505 will not change: not retried within the call, and not retryable later.
    @Test(arguments: [501, 505]) func notImplementedIsNotRetried(status: Int) async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy { $0.maxRetries = 2 })
        let url = server.url("/status/\(status)")
        let error = await fetchError(client, url)
        #expect(error == .httpStatus(url: url, status: status))
        #expect(error?.isRetryable == false)
        #expect(server.hits("/status/\(status)") == 1)
    }

    @Test func notFoundIsNotRetried() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy())
        let url = server.url("/status/404")
        #expect(await fetchError(client, url) == .httpStatus(url: url, status: 404))
        #expect(server.hits("/status/404") == 1)
    }

    @Test func serverErrorThenSuccessTakesTwoAttempts() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy())
        let response = try await client.fetch(server.url("/flaky/a?fail=1&status=500"))
        #expect(response.attempts == 2)
        #expect(server.hits("/flaky/a") == 2)
    }

    @Test func persistentServerErrorGivesUpAfterTheRetries() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy { $0.maxRetries = 2 })
        let url = server.url("/flaky/b?fail=10&status=503")
        #expect(await fetchError(client, url) == .httpStatus(url: url, status: 503))
        #expect(server.hits("/flaky/b") == 3)
    }

    @Test func tooManyRequestsHonoursRetryAfter() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy())
        let response = try await client.fetch(server.url("/retry-after/a?seconds=1"))
        #expect(response.attempts == 2)
        #expect(server.hits("/retry-after/a") == 2)
    }

    @Test func retryAfterOverTheLimitIsNotWaitedFor() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy { $0.retryAfterLimit = .seconds(2) })
        let url = server.url("/retry-after/b?seconds=3600")
        #expect(await fetchError(client, url) == .httpStatus(url: url, status: 429, retryAfter: .seconds(3600)), "the wait it asked for is kept for the caller")
        #expect(server.hits("/retry-after/b") == 1)
    }

    @Test(arguments: [
        "ftp://example.com/a.jpg", "file:///etc/passwd", "gopher://example.com/", "data:image/png;base64,AA==",
    ])
    func onlyHTTPSchemes(url: String) async {
        let client = HTTPClient(policy: loopbackPolicy(), maxConcurrent: 1)
        let error = await fetchError(client, url)
        guard case .unsupportedScheme? = error else {
            Issue.record("expected unsupportedScheme, got \(String(describing: error))")
            return
        }
    }

    @Test(arguments: ["not a url", "http://", "http:///path", ""])
    func invalidURLs(url: String) async {
        let client = HTTPClient(policy: loopbackPolicy(), maxConcurrent: 1)
        #expect(await fetchError(client, url) == .invalidURL(url: url))
    }

    @Test func redirectToAnotherSchemeIsRefused() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy())
        let error = await fetchError(client, server.url("/redirect-to?url=file:///etc/passwd"))
        #expect(error == .unsupportedScheme(url: "file:///etc/passwd", scheme: "file"))
    }

    @Test func allowedHostsAreCheckedOnEveryHop() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let denied = HTTPClient(policy: loopbackPolicy { $0.allowedHosts = ["*.example.com"] })
        #expect(
            await fetchError(denied, server.url("/ok")) == .hostNotAllowed(url: server.url("/ok"), host: "127.0.0.1"))
        #expect(server.hits("/ok") == 0)

        let client = HTTPClient(policy: loopbackPolicy { $0.allowedHosts = ["127.0.0.1"] })
        let target = "http://localhost:\(server.port)/ok"
        let error = await fetchError(client, server.url("/redirect-to?url=\(target)"))
        #expect(error == .hostNotAllowed(url: target, host: "localhost"))
    }

    /// Cancelled once the request is held mid-body at the server: the transfer is in progress,
    /// and nothing but the cancellation can end it.
    @Test func cancellationAbortsTheTransfer() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let gate = server.hold("/held", sendingFirst: 100)
        let client = HTTPClient(policy: loopbackPolicy())
        let url = server.url("/held")
        let error = await withTaskGroup(of: FetchError?.self) { group in
            group.addTask { await fetchError(client, url) }
            let held = await gate.wait { $0.waiting == 1 }
            #expect(held != nil, "the request never reached the server")
            group.cancelAll()
            return await group.next() ?? nil
        }
        #expect(error == .cancelled(url: url))
        #expect(gate.current.passed == 0)
        gate.open()
    }

    @Test func manyConcurrentFetchesShareFewThreads() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy(), maxConcurrent: 3)
        let sizes = Array(1...24).map { $0 * 1000 }
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for size in sizes {
                group.addTask { try await client.fetch(server.url("/bytes?size=\(size)")).body.count }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts.sorted() == sizes)
    }

    @Test(.enabled(if: TestHTTPServer.ipv6LoopbackAvailable, "no IPv6 loopback on this machine"))
    func servesAndFetchesOverIPv6() async throws {
        let server = try TestHTTPServer(host: "::1")
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy())
        let response = try await client.fetch(server.url("/ok"))
        #expect(response.finalURL.hasPrefix("http://[::1]:"))
        #expect(response.body.count == 13)
    }

    /// Stopped while a response is held mid-body: the connection breaks (the client sees a
    /// truncated body), and `stop` still ends every connection thread.
    @Test func serverStopsCleanlyMidBody() async throws {
        let server = try TestHTTPServer()
        let gate = server.hold("/held", sendingFirst: 100, .bytes(TestHTTPServer.pattern(100_000)))
        let client = HTTPClient(policy: loopbackPolicy { $0.maxRetries = 0 })
        let url = server.url("/held")
        async let fetched = fetchError(client, url)
        let held = await gate.wait { $0.waiting == 1 }
        #expect(held != nil, "the request never reached the server")
        #expect(server.stop(), "a connection thread outlived stop()")
        let error = await fetched
        guard case .connectionFailed? = error else {
            Issue.record("expected connectionFailed, got \(String(describing: error))")
            return
        }
        #expect(server.hits("/held") == 1)
    }
}

/// Request headers: sent to the URL's own origin, dropped on a hop to another, checked first.
@Suite("HTTP client: request headers", .ownThread)
struct RequestHeaderTests {
    @Test func headersGoToTheOriginOnly() async throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let other = try TestHTTPServer()
        defer { other.stop() }
        let seen = Mutex<[String: String]>([:])
        other.route("/b") { request in
            seen.withLock { $0["other"] = request.headers["x-tenant"] ?? "(none)" }
            return .text("ok")
        }
        origin.route("/a") { request in
            seen.withLock { $0["origin"] = request.headers["x-tenant"] ?? "(none)" }
            return .redirect(to: other.url("/b"))
        }
        var policy = FetchPolicy()
        policy.allowPrivateNetworks = true
        policy.headers = ["X-Tenant": "a", "X-Other": "b"]
        let client = HTTPClient(policy: policy)
        _ = try await client.fetch(origin.url("/a"), headers: ["x-tenant": "request's"])
        #expect(seen.withLock { $0 } == ["origin": "request's", "other": "(none)"])
    }

    @Test func aChainThatLeftTheOriginDoesNotSendThemOnItsWayBack() async throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let other = try TestHTTPServer()
        defer { other.stop() }
        let seen = Mutex<[String]>([])
        origin.route("/start") { request in
            seen.withLock { $0.append("start:" + (request.headers["x-tenant"] ?? "(none)")) }
            return .redirect(to: other.url("/bounce"))
        }
        other.route("/bounce") { _ in .redirect(to: origin.url("/back")) }
        origin.route("/back") { request in
            seen.withLock { $0.append("back:" + (request.headers["x-tenant"] ?? "(none)")) }
            return .text("ok")
        }
        var policy = FetchPolicy()
        policy.allowPrivateNetworks = true
        _ = try await HTTPClient(policy: policy).fetch(origin.url("/start"), headers: ["X-Tenant": "t"])
        #expect(seen.withLock { $0 } == ["start:t", "back:(none)"])
    }

    @Test func aValueThatWasNotCheckedFailsTheTransferInsteadOfStoppingTheProcess() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/a") { _ in .text("ok") }
        var policy = FetchPolicy()
        policy.allowPrivateNetworks = true
        let client = HTTPClient(policy: policy)
        do {
            _ = try await client.fetch(server.url("/a"), headers: ["X-Sep": "a\u{2028}b"])
            Issue.record("a header value with U+2028 was sent")
        } catch {
            guard case .transferFailed(_, _, let message) = error else {
                Issue.record("expected transferFailed, got \(error)")
                return
            }
            #expect(message.contains("control character"))
        }
        #expect(server.hits("/a") == 0)
    }

    @Test func problemsAreNamed() {
        var policy = FetchPolicy()
        #expect(policy.headerProblem() == nil)
        policy.headers = ["X-Ok": "value with spaces and ünïcode"]
        #expect(policy.headerProblem()?.contains("allowedHosts") == true, "headers for every URL need a host scope")
        policy.allowedHosts = ["cdn.example.com"]
        #expect(policy.headerProblem() == nil)
        #expect(policy.headerProblem(adding: ["X-Sep": "a\u{2028}b"])?.contains("control character") == true)
        #expect(policy.headerProblem(adding: ["X-Inj": "a\u{0}b"])?.contains("the request's headers") == true)
        policy.headers = ["Accept-Encoding": "gzip"]
        #expect(policy.headerProblem()?.contains("identity") == true)
        policy.headers = ["X(bad)": "v"]
        #expect(policy.headerProblem()?.contains("is not a header name") == true)
        #expect(HTTPClient.origin(of: "HTTP://Example.com/a") == HTTPClient.origin(of: "http://example.com:80/b"))
        #expect(HTTPClient.origin(of: "https://example.com/a") != HTTPClient.origin(of: "http://example.com/a"))
    }
}
