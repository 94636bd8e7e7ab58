import Foundation
import TestSupport
import Testing

@testable import PushAttach

@Suite struct BatchTests {
    @Test func everyURLIsYieldedOnce() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let jpeg = try Corpus.data(Fixtures.jpeg)
        for index in 0..<6 { server.route("/\(index).jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") } }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer { $0.maxInFlight = 3 }
        var urls = (0..<6).map { URL(string: server.url("/\($0).jpg"))! }
        urls.append(URL(string: server.url("/status/404"))!)

        var seen: [URL] = []
        var prepared = 0
        for await (url, result) in preparer.prepare(urls, into: folder.url) {
            seen.append(url)
            if case .success = result { prepared += 1 }
        }
        #expect(seen.count == urls.count)
        #expect(Set(seen) == Set(urls))
        #expect(prepared == 6)
        #expect(folder.names(in: "Images").count == 6)
    }

    @Test func cancellingTheConsumerStopsTheBatch() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let jpeg = try Corpus.data(Fixtures.jpeg)
        // Each request sends half its body, then waits: downloads in flight, never finishing.
        let gate = server.hold("/cat.jpg", sendingFirst: jpeg.count / 2, .bytes(jpeg, contentType: "image/jpeg"))
        let folder = TemporaryFolder()
        defer { folder.remove() }
        // Bodies past 10 kB stream to the folder's `.spool/`: cancelling must remove them.
        let preparer = Fixtures.preparer {
            $0.maxInFlight = 2
            $0.fetch.spoolThreshold = 10_000
        }
        let urls = (0..<10).map { URL(string: server.url("/cat.jpg?n=\($0)"))! }

        let consumer = Task {
            var yielded = 0
            for await _ in preparer.prepare(urls, into: folder.url) { yielded += 1 }
            return yielded
        }
        let inFlight = await gate.wait { $0.waiting == 2 }
        #expect(inFlight != nil)
        consumer.cancel()
        let yielded = await consumer.value
        await preparer.waitUntilIdle()

        #expect(yielded == 0)
        #expect(gate.current.arrived == 2, "no item started after the cancel")
        #expect(folder.files.isEmpty, "\(folder.files)")
        #expect(folder.spoolLeftovers.isEmpty, "\(folder.spoolLeftovers)")
        gate.open()
    }
}
