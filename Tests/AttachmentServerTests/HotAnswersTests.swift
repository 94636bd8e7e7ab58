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

    /// The test's clock: moved by hand.
    final class Clock: @unchecked Sendable {
        let start = ContinuousClock.now
        var elapsed = Duration.zero
        var now: ContinuousClock.Instant { start + elapsed }
    }

    @Test func theLeastRecentlyHitGoFirstPastTheCountOrTheBytesAndABodyOverTheBytesIsNotKept() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try AttachmentCache(folder: folder)
        let clock = Clock()
        let hot = HotAnswers(countLimit: 2, byteLimit: 1000, now: { clock.now })
        hot.keep(try answer(cache, "a", bytes: 400), for: "a")
        clock.elapsed += .seconds(1)
        hot.keep(try answer(cache, "b", bytes: 400), for: "b")
        #expect(hot.usage == (2, 800))
        clock.elapsed += .seconds(1)
        #expect(hot.answer(for: "a")?.etag == "\"a\"", "a hit: a is now the most recently hit")
        hot.keep(try answer(cache, "c", bytes: 100), for: "c")
        #expect(hot.usage == (2, 500), "over the count: b, the least recently hit, went")
        #expect(hot.answer(for: "b") == nil && hot.answer(for: "a") != nil && hot.answer(for: "c") != nil)
        hot.keep(try answer(cache, "c", bytes: 300), for: "c")
        #expect(hot.usage == (2, 700), "a key kept again replaces its answer")
        hot.keep(try answer(cache, "d", bytes: 950), for: "d")
        #expect(hot.usage == (1, 950), "over the bytes: both others went")
        hot.keep(try answer(cache, "e", bytes: 1001), for: "e")
        #expect(hot.answer(for: "e") == nil && hot.usage == (1, 950), "a body over the byte limit is not kept")
        hot.removeAll()
        #expect(hot.usage == (0, 0) && hot.answer(for: "d") == nil)
    }

    @Test func anAnswerNotHitForItsIdleLimitGoesWhenAnotherIsKept() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try AttachmentCache(folder: folder)
        let clock = Clock()
        let hot = HotAnswers(countLimit: 10, idleLimit: .seconds(60), now: { clock.now })
        hot.keep(try answer(cache, "idle", bytes: 10), for: "idle")
        hot.keep(try answer(cache, "busy", bytes: 10), for: "busy")
        clock.elapsed += .seconds(50)
        _ = hot.answer(for: "busy")
        clock.elapsed += .seconds(20)
        #expect(hot.usage.count == 2, "nothing is dropped until another answer is kept")
        hot.keep(try answer(cache, "new", bytes: 10), for: "new")
        #expect(hot.answer(for: "idle") == nil, "70 s without a hit")
        #expect(hot.answer(for: "busy") != nil && hot.answer(for: "new") != nil)
    }

    @Test func aDropTakesOnlyTheAnswerItWasAskedFor() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try AttachmentCache(folder: folder)
        let hot = HotAnswers(countLimit: 10)
        let first = try answer(cache, "k", bytes: 10)
        hot.keep(first, for: "k")
        let second = try answer(cache, "k", bytes: 20)
        hot.keep(second, for: "k")
        hot.drop("k", ifStill: first.response)
        #expect(hot.answer(for: "k")?.response === second.response, "kept since: not dropped")
        hot.drop("k", ifStill: second.response)
        #expect(hot.answer(for: "k") == nil && hot.usage == (0, 0))
    }

    /// The router drops a kept answer whose send ended early (the daemon's completed callback
    /// says so: a reset, a failed read of the file), and keeps one sent whole. A reset cannot be
    /// timed from a test on loopback (the kernel takes a whole answer into the socket's buffer
    /// before the client's reset arrives, or not), so the exchange is ended here as the daemon
    /// would end it.
    @Test func aKeptAnswerWhoseSendEndedEarlyIsDropped() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = AttachmentServer.Configuration(cacheFolder: folder)
        configuration.allowUnsigned = true
        let cache = try AttachmentCache(folder: folder)
        let router = RequestRouter(configuration: configuration, cache: cache)
        defer { router.stopPreparations() }
        let daemon = try HTTPDaemon(
            settings: HTTPDaemon.Settings(
                host: "127.0.0.1", port: 0, threads: 1, connectionLimit: 4, perIPLimit: 0, idleTimeout: 5,
                headerTimeout: .zero),
            handler: router)
        defer { daemon.stop(answeringParkedWith: HTTPResponse(status: 503)) }
        for (name, sentWhole) in [("whole", true), ("cut", false)] {
            let kept = try answer(cache, name, bytes: 100)
            router.hotAnswers.keep(kept, for: name)
            let exchange = HTTPExchange(uri: "/a/-/\(name)", daemon: daemon)
            exchange.kept = (name, kept.response)
            exchange.finish(sentWhole: sentWhole)
            router.completed(exchange)
        }
        #expect(router.hotAnswers.answer(for: "whole") != nil)
        #expect(router.hotAnswers.answer(for: "cut") == nil)
    }

    @Test func theCountIsAtMostAQuarterOfTheDescriptorLimit() {
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let expected = min(1024, Int(clamping: limit.rlim_cur) / 4)
        #expect(HotAnswers().countLimit == expected)
    }
}
