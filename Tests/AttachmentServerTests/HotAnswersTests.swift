@testable import AttachmentServer
import Foundation
import PushAttach
import TestSupport
import Testing

/// The bounds of the answers `serve` keeps open between hits.
@Suite(.tags(.slow), .notInFastTier) struct HotAnswersTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hot-\(UUID().uuidString)")

    func answer(_ cache: AttachmentCache, _ name: String, bytes: Int) throws -> HotAnswers.Answer {
        let key = AttachmentCache.Key(AttachmentLink(source: URL(string: "https://cdn.example.com/\(name)")!))
        let entry = try cache.store(Data(repeating: 1, count: bytes), format: .jpeg, for: key)
        let response = try #require(HTTPDaemon.share(HTTPResponse(status: 200, body: .data(Data(count: bytes)))))
        return HotAnswers.Answer(entry: entry, response: response, etag: "\"\(name)\"", notModifiedHeaders: [])
    }

    @Test func theTableStartsOverPastItsCountOrBytesAndNeverKeepsABodyOverItsBytes() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try AttachmentCache(folder: folder)
        let hot = HotAnswers(countLimit: 2, byteLimit: 1000)
        hot.keep(try answer(cache, "a", bytes: 400), for: "a")
        hot.keep(try answer(cache, "b", bytes: 400), for: "b")
        #expect(hot.usage == (2, 800))
        hot.keep(try answer(cache, "b", bytes: 300), for: "b")
        #expect(hot.usage == (2, 700), "a key kept again replaces its answer")
        hot.keep(try answer(cache, "c", bytes: 100), for: "c")
        #expect(hot.usage == (1, 100), "a third answer: over the count, the table starts over")
        #expect(hot.answer(for: "a") == nil && hot.answer(for: "c")?.etag == "\"c\"")
        hot.keep(try answer(cache, "d", bytes: 950), for: "d")
        #expect(hot.usage == (1, 950), "over the bytes: starts over")
        hot.keep(try answer(cache, "e", bytes: 1001), for: "e")
        #expect(hot.answer(for: "e") == nil && hot.usage == (1, 950), "a body over the byte limit is not kept")
        hot.drop("d")
        #expect(hot.usage == (0, 0))
        hot.keep(try answer(cache, "f", bytes: 10), for: "f")
        hot.removeAll()
        #expect(hot.usage == (0, 0) && hot.answer(for: "f") == nil)
    }
}
