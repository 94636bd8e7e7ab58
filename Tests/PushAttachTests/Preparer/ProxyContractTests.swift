import Foundation
import PushAttach
import TestSupport
import Testing

/// `Configuration.fetch.proxy` through `import PushAttach` alone, as a service configures it:
/// a prepare goes through the loopback forward proxy; with private networks refused, a private
/// target is refused before the proxy or any origin hears of it.
@Suite(.ownThread) struct ProxyContractTests {
    @Test func aPrepareGoesThroughTheProxyAndAPrivateTargetNeverReachesIt() async throws {
        let origin = try TestHTTPServer()
        let proxy = try TestForwardProxy()
        defer {
            proxy.stop()
            origin.stop()
        }
        let jpeg = try Corpus.data(Fixtures.jpeg)
        origin.route("/cat.jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") }
        let folder = TemporaryFolder()
        defer { folder.remove() }

        var configuration = AttachmentPreparer.Configuration.default
        configuration.fetch.proxy = proxy.url
        configuration.fetch.allowPrivateNetworks = true  // the loopback origin behind the proxy
        let url = origin.url("/cat.jpg")
        let attachment = try await AttachmentPreparer(configuration: configuration).prepare(url, into: folder.url)
        #expect(attachment.typeHint == "public.jpeg")
        #expect(proxy.requests.map(\.target) == [url])
        #expect(origin.hits("/cat.jpg") == 1)

        configuration.fetch.allowPrivateNetworks = false
        let guarded = AttachmentPreparer(configuration: configuration)
        for target in ["http://10.0.0.7/cat.jpg", "http://192.168.0.7:8080/cat.jpg", origin.url("/cat.jpg")] {
            do {
                _ = try await guarded.prepare(target, into: folder.url)
                Issue.record("\(target) was fetched")
            } catch {
                guard case .fetch(.addressRefused)? = error.underlying else {
                    Issue.record("expected a refused address for \(target), got \(error)")
                    continue
                }
            }
        }
        #expect(proxy.requests.count == 1)
        #expect(origin.hits("/cat.jpg") == 1)
    }
}
