import Foundation
import TestSupport
import Testing

import PushAttach

/// `AttachmentBatch`: what `pushattach prepare` does, through the public API alone (no
/// `@testable`): a manifest, resume without downloading again, entries as they finish.
@Suite("AttachmentBatch: a batch with a manifest, from the library", .ownThread)
struct AttachmentBatchTests {
    static func configuration() -> AttachmentPreparer.Configuration {
        var configuration = AttachmentPreparer.Configuration.default
        configuration.fetch.allowPrivateNetworks = true
        configuration.fetch.maxRetries = 0
        return configuration
    }

    @Test func threeURLsThenAResumeThatDownloadsNothing() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let jpeg = try Corpus.data(Fixtures.jpeg)
        let webp = try Corpus.data(Fixtures.webp)
        server.route("/a.jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") }
        server.route("/b.webp") { _ in .bytes(webp, contentType: "image/webp") }
        let urls = [server.url("/a.jpg"), server.url("/b.webp"), server.url("/status/404")].map { URL(string: $0)! }
        let folder = TemporaryFolder()
        defer { folder.remove() }

        var entries: [BatchEntry] = []
        for try await entry in AttachmentBatch(folder: folder.url, configuration: Self.configuration()).events([
            .urls(urls)
        ]) {
            entries.append(entry)
        }
        #expect(entries.count == 3)
        let byInput = Dictionary(uniqueKeysWithValues: entries.map { ($0.input, $0) })
        let a = try #require(byInput[urls[0].absoluteString])
        #expect(a.status == .prepared && a.action != nil && a.typeHint == "public.jpeg")
        #expect(a.fileURL.map { FileManager.default.fileExists(atPath: $0.path) } == true)
        #expect(byInput[urls[1].absoluteString]?.action == .convert)
        #expect(byInput[urls[2].absoluteString]?.status == .failed)
        let manifest = folder.url.appendingPathComponent("manifest.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as? [String: Any])
        #expect((document["entries"] as? [Any])?.count == 3)
        let hits = (server.hits("/a.jpg"), server.hits("/b.webp"))
        #expect(hits == (1, 1))

        var options = AttachmentBatch.Options()
        options.resume = true
        let again = try await AttachmentBatch(folder: folder.url, configuration: Self.configuration(), options: options)
            .run([.urls(urls)])
        #expect(again.skipped == 2 && again.prepared == 0 && again.failed == 1, "\(again)")
        #expect((server.hits("/a.jpg"), server.hits("/b.webp")) == (1, 1), "a prepared item was downloaded again")
        #expect(again.manifest == manifest)
    }

    @Test func aShardOutsideItsCountIsAnInvalidArgument() async throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        var options = AttachmentBatch.Options()
        options.shard = (index: 3, count: 2)
        let error = await #expect(throws: AttachmentError.self) {
            try await AttachmentBatch(folder: folder.url, options: options).run([.urls([])])
        }
        #expect(error?.kind == .invalidArgument, "\(String(describing: error))")
    }
}
