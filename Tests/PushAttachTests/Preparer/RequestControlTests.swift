import Foundation
import Synchronization
import TestSupport
import Testing

import PushAttach
import PushAttachBatch

/// What a service needs per request: headers for a private origin (from the configuration or
/// the request), never sent to another origin, refused when they could inject a line; and
/// advice on whether to try again, and when. Through the public API alone.
@Suite("requests: headers and retry advice", .ownThread)
struct RequestControlTests {
    /// A private CDN: 401 without `Authorization: Bearer t0ken`, the image with it.
    static func privateOrigin() throws -> TestHTTPServer {
        let server = try TestHTTPServer()
        let jpeg = try Corpus.data(Fixtures.jpeg)
        server.route("/private.jpg") { request in
            request.headers["authorization"] == "Bearer t0ken"
                ? .bytes(jpeg, contentType: "image/jpeg") : .text("who are you?", status: 401)
        }
        return server
    }

    @Test func theConfigurationsHeadersOpenAPrivateOrigin() async throws {
        let server = try Self.privateOrigin()
        defer { server.stop() }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let url = URL(string: server.url("/private.jpg"))!

        let refused = await #expect(throws: AttachmentError.self) {
            try await Fixtures.preparer().prepare(url, into: folder.url)
        }
        #expect(refused?.kind == .downloadFailed && refused?.reason.contains("401") == true)
        #expect(refused?.isRetryable == false && refused?.retryAfter == nil)

        // Headers for every URL need the hosts that may receive them.
        let unscoped = Fixtures.preparer { $0.fetch.headers["Authorization"] = "Bearer t0ken" }
        let scopeMissing = await #expect(throws: AttachmentError.self) {
            try await unscoped.prepare(url, into: folder.url)
        }
        #expect(scopeMissing?.kind == .invalidArgument && scopeMissing?.reason.contains("allowedHosts") == true)
        let preparer = Fixtures.preparer {
            $0.fetch.headers["Authorization"] = "Bearer t0ken"
            $0.fetch.allowedHosts = ["127.0.0.1"]
        }
        let attachment = try await preparer.prepare(url, into: folder.url)
        #expect(attachment.format == .jpeg)
    }

    @Test func aRequestsHeadersGoOverTheConfigurations() async throws {
        let server = try Self.privateOrigin()
        defer { server.stop() }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer {
            $0.fetch.headers["authorization"] = "Bearer another-tenant"
            $0.fetch.allowedHosts = ["127.0.0.1"]
        }
        var request = AttachmentRequest(url: URL(string: server.url("/private.jpg"))!)
        request.headers["Authorization"] = "Bearer t0ken"
        let attachment = try await preparer.prepare(request, into: folder.url)
        #expect(attachment.format == .jpeg)
    }

    @Test func headersAreNotSentToAnotherOrigin() async throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let elsewhere = try TestHTTPServer()
        defer { elsewhere.stop() }
        let jpeg = try Corpus.data(Fixtures.jpeg)
        let seen = Mutex<[String?]>([])
        elsewhere.route("/cat.jpg") { request in
            seen.withLock { $0.append(request.headers["authorization"]) }
            return .bytes(jpeg, contentType: "image/jpeg")
        }
        origin.route("/moved.jpg") { request in
            seen.withLock { $0.append(request.headers["authorization"]) }
            return .redirect(to: elsewhere.url("/cat.jpg"))
        }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer {
            $0.fetch.headers["Authorization"] = "Bearer t0ken"
            $0.fetch.allowedHosts = ["127.0.0.1"]
        }
        _ = try await preparer.prepare(URL(string: origin.url("/moved.jpg"))!, into: folder.url)
        #expect(seen.withLock { $0 } == ["Bearer t0ken", nil], "the credential went to the redirect's origin")
    }

    @Test(arguments: [
        ["X-Bad": "a\r\nHost: evil.example"], ["X-Bad": "a\nb"], ["Bad Name": "x"], ["Host": "evil.example"],
        ["User-Agent": "x"], ["": "x"], ["X-Bad": "Bearer a\u{2028}b"], ["X-Bad": "a\u{0B}b"], ["X-Bad": "a\u{85}b"],
        ["X-Bad": "a\u{7F}"], ["X-Empty": " "], ["X-Twice": "a", "x-twice": "b"],
    ])
    func headersThatCouldInjectOrClashAreRefusedBeforeAnyFetch(_ headers: [String: String]) async throws {
        let server = try Self.privateOrigin()
        defer { server.stop() }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer {
            $0.fetch.headers = headers
            $0.fetch.allowedHosts = ["127.0.0.1"]
        }
        let error = await #expect(throws: AttachmentError.self) {
            try await preparer.prepare(URL(string: server.url("/private.jpg"))!, into: folder.url)
        }
        #expect(error?.kind == .invalidArgument && error?.reason.contains("FetchPolicy.headers") == true, "\(String(describing: error))")
        #expect(server.hits("/private.jpg") == 0)
        let batch = AttachmentBatch(folder: folder.url, configuration: preparer.configuration)
        let batchError = await #expect(throws: AttachmentError.self) {
            try await batch.run([.urls([URL(string: server.url("/private.jpg"))!])])
        }
        #expect(batchError?.kind == .invalidArgument)
    }

    @Test func aUserAgentOnTwoLinesIsRefused() async throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer { $0.fetch.userAgent = "PushAttach\r\nX-Injected: 1" }
        let error = await #expect(throws: AttachmentError.self) {
            try await preparer.prepare(URL(string: "http://127.0.0.1:9/a.jpg")!, into: folder.url)
        }
        #expect(error?.kind == .invalidArgument && error?.reason.contains("userAgent") == true)
    }

    @Test func a503WithRetryAfterIsRetryableAfterItsDelay() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/busy.jpg") { _ in
            TestHTTPServer.Response(status: 503, headers: [("Retry-After", "7")], body: .bytes(Data("later\n".utf8)))
        }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let error = await #expect(throws: AttachmentError.self) {
            try await Fixtures.preparer().prepare(URL(string: server.url("/busy.jpg"))!, into: folder.url)
        }
        #expect(error?.kind == .downloadFailed)
        #expect(error?.isRetryable == true)
        #expect(error?.retryAfter == .seconds(7))

        let missing = await #expect(throws: AttachmentError.self) {
            try await Fixtures.preparer().prepare(URL(string: server.url("/status/404"))!, into: folder.url)
        }
        #expect(missing?.isRetryable == false && missing?.retryAfter == nil)
    }

    @Test func aTimeoutIsRetryable() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let gate = TestHTTPServer.Gate()
        server.route("/slow.jpg") { _ in
            TestHTTPServer.Response(status: 200, body: .held(Data(repeating: 0xFF, count: 4096), first: 10, gate: gate))
        }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer { $0.fetch.deadline = .milliseconds(300) }
        let error = await #expect(throws: AttachmentError.self) {
            try await preparer.prepare(URL(string: server.url("/slow.jpg"))!, into: folder.url)
        }
        gate.open()
        #expect(error?.isRetryable == true, "\(String(describing: error))")
    }
}
