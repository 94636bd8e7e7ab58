import Foundation
import PushAttach
import TestSupport
import Testing

/// The library's five-line example (GettingStarted), through `import PushAttach` alone (no `@testable`): the names a
/// program outside the repository compiles against.
@Suite struct ContractTests {
    @Test func theFiveLineExampleRuns() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let jpeg = try Corpus.data(Fixtures.jpeg)
        server.route("/a.jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") }
        server.route("/b.webp") { _ in .bytes(try! Corpus.data(Fixtures.webp), contentType: "image/webp") }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let url = URL(string: server.url("/a.jpg"))!
        let urls = [url, URL(string: server.url("/b.webp"))!]

        var configuration = AttachmentPreparer.Configuration.default
        configuration.fetch.allowPrivateNetworks = true  // the loopback test server
        configuration.callDeadline = Fixtures.callDeadline  // the whole test run shares two cores
        let preparer = AttachmentPreparer(configuration: configuration)
        let a = try await preparer.prepare(url, typeHint: "image", into: folder.url)
        let _: (URL, String, PixelSize?, [String]) = (a.fileURL, a.typeHint, a.pixelSize, a.warnings)
        var finished = 0
        for await (_, result) in preparer.prepare(urls, into: folder.url) {
            if case .success = result { finished += 1 }
        }
        let report = await AttachmentVerifier().verify(fileAt: a.fileURL)
        let _: AttachmentReport.Verdict = report.verdict
        let _: UNErrorCode? = report.errorCode
        let thumb = try await Thumbnail.image(from: jpeg, maxSide: 256)
        let _: (Data, PixelSize) = (thumb.data, thumb.size)

        #expect(finished == 2)
        #expect(report.verdict == .accepted)
        #expect(max(thumb.size.width, thumb.size.height) <= 256)
        #expect(AttachmentPreparer.shared.configuration.fetch.allowPrivateNetworks == false)
    }
}
