import Foundation
import TestSupport
import Testing

@testable import Fetch

/// FNV-1a as a streaming digest: the tests compare it with the same hash of the bytes in memory.
struct FNVDigest: BodyDigest {
    var state: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            state ^= UInt64(byte)
            state = state &* 0x100_0000_01b3
        }
    }

    mutating func finish() -> String { String(state, radix: 16) }

    static func of(_ data: Data) -> String {
        var digest = FNVDigest()
        data.withUnsafeBytes { digest.update($0) }
        return digest.finish()
    }
}

/// A spool folder of its own, removed at the end.
final class SpoolFolder {
    let url: URL
    let spool: Spool

    init(budget: Int = 2_000_000_000) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-spool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        spool = try Spool(directory: url, budget: budget, makeDigest: { _ in FNVDigest() })
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The names in the folder now.
    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }

    /// A loopback policy that spools past `threshold` bytes into this folder.
    func policy(threshold: Int, _ adjust: (inout FetchPolicy) -> Void = { _ in }) -> FetchPolicy {
        loopbackPolicy {
            $0.spool = spool
            $0.spoolThreshold = threshold
            adjust(&$0)
        }
    }
}

@Suite("Spooled bodies: threshold, cap, clean-up, digest and budget", .ownThread)
struct SpoolTests {
    @Test func bodiesUpToTheThresholdStayInMemory() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let folder = try SpoolFolder()
        let client = HTTPClient(policy: folder.policy(threshold: 1000))
        let atThreshold = try await client.fetch(server.url("/bytes?size=1000"))
        #expect(!atThreshold.content.isSpooled)
        #expect(atThreshold.body == TestHTTPServer.pattern(1000))
        let over = try await client.fetch(server.url("/bytes?size=1001"))
        guard case .file(let file) = over.content else {
            Issue.record("a body over the threshold stayed in memory")
            return
        }
        #expect(file.size == 1001)
        #expect(try file.mapped() == TestHTTPServer.pattern(1001))
        #expect(try file.prefix(10) == TestHTTPServer.pattern(10))
        #expect(over.body == TestHTTPServer.pattern(1001))
        #expect(folder.names.count == 1)
    }

    @Test func withoutASpoolEveryBodyStaysInMemory() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let client = HTTPClient(policy: loopbackPolicy { $0.spoolThreshold = 10 })
        let response = try await client.fetch(server.url("/bytes?size=5000"))
        #expect(!response.content.isSpooled)
        #expect(response.body == TestHTTPServer.pattern(5000))
    }

    @Test func theDigestStreamedEqualsTheDigestOfTheBytes() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let folder = try SpoolFolder()
        let client = HTTPClient(policy: folder.policy(threshold: 100))
        let response = try await client.fetch(server.url("/bytes?size=300000"))
        guard case .file(let file) = response.content else {
            Issue.record("not spooled")
            return
        }
        #expect(file.digest == FNVDigest.of(TestHTTPServer.pattern(300_000)))
    }

    @Test func theFileGoesWithTheLastReferenceAndGivesItsBudgetBack() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let folder = try SpoolFolder()
        let client = HTTPClient(policy: folder.policy(threshold: 100))
        var response: FetchResponse? = try await client.fetch(server.url("/bytes?size=5000"))
        #expect(folder.names.count == 1)
        // The reservation shrank from the cap to the body.
        #expect(folder.spool.reservedBytes == 5000)
        #expect(response?.content.count == 5000)
        response = nil
        #expect(folder.names.isEmpty)
        #expect(folder.spool.reservedBytes == 0)
    }

    @Test func theCapIsExactWhileSpooling() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let folder = try SpoolFolder()
        let client = HTTPClient(policy: folder.policy(threshold: 100) { $0.byteCap = 5000 })
        let atCap = try await client.fetch(server.url("/bytes?size=5000&type=none"))
        #expect(atCap.content.isSpooled && atCap.content.count == 5000)
        let over = server.url("/bytes?size=5001&type=none")
        #expect(await fetchError(client, over)?.withoutFirstBytes == .tooLarge(url: over, cap: 5000, declared: 5001))
        // Without a Content-Length to give it away: aborted while streaming, past the threshold.
        let endless = server.url("/endless")
        #expect(await fetchError(client, endless)?.withoutFirstBytes == .tooLarge(url: endless, cap: 5000, declared: nil))
        withExtendedLifetime(atCap) { #expect(folder.names.count == 1) }  // only `atCap`'s
    }

    @Test func anEndlessBodyStopsAtTheCapAndLeavesNoFile() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let folder = try SpoolFolder()
        let client = HTTPClient(policy: folder.policy(threshold: 1000) { $0.byteCap = 300_000 })
        let url = server.url("/endless")
        #expect(await fetchError(client, url)?.withoutFirstBytes == .tooLarge(url: url, cap: 300_000, declared: nil))
        #expect(folder.names.isEmpty)
        #expect(folder.spool.reservedBytes == 0)
    }

    @Test func theTightenedCapHoldsForASpooledBody() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let folder = try SpoolFolder()
        let client = HTTPClient(
            policy: folder.policy(threshold: 100) {
                $0.byteCap = 50_000
                $0.tightenCap = { _ in 3000 }
            })
        let atCap = try await client.fetch(server.url("/bytes?size=3000"))
        #expect(atCap.content.count == 3000 && atCap.content.isSpooled)
        let url = server.url("/endless")
        #expect(await fetchError(client, url)?.withoutFirstBytes == .tooLarge(url: url, cap: 3000, declared: nil))
        withExtendedLifetime(atCap) { #expect(folder.names.count == 1) }
    }

    @Test func aBrokenTransferLeavesNoFile() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let folder = try SpoolFolder()
        let client = HTTPClient(policy: folder.policy(threshold: 100) { $0.maxRetries = 0 })
        let error = await fetchError(client, server.url("/reset?bytes=5000"))
        #expect(error != nil)
        #expect(folder.names.isEmpty)
        #expect(folder.spool.reservedBytes == 0)
    }

    @Test func cancellingMidBodyLeavesNoFile() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let folder = try SpoolFolder()
        let (spooling, spooled) = AsyncStream.makeStream(of: Void.self)
        let gate = server.hold("/held", sendingFirst: 50_000, .bytes(TestHTTPServer.pattern(100_000)))
        let client = HTTPClient(policy: folder.policy(threshold: 100))
        let task = Task { try await client.fetch(server.url("/held"), whenSpooling: { spooled.yield() }) }
        _ = await gate.wait { $0.waiting == 1 }
        var events = spooling.makeAsyncIterator()
        _ = await events.next()
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result, case .cancelled? = error as? FetchError else {
            Issue.record("expected cancelled, got \(result)")
            gate.open()
            return
        }
        gate.open()
        #expect(folder.names.isEmpty)
        #expect(folder.spool.reservedBytes == 0)
    }

    @Test func aBodyOverTheWholeBudgetRunsAlone() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let folder = try SpoolFolder(budget: 1000)
        let client = HTTPClient(policy: folder.policy(threshold: 100))
        let response = try await client.fetch(server.url("/bytes?size=20000"))
        #expect(response.content.count == 20000)
        #expect(response.body == TestHTTPServer.pattern(20000))
    }

    @Test func aBodyWaitsForTheBudgetUntilItsDeadline() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let folder = try SpoolFolder(budget: 1000)
        let (spooling, spooled) = AsyncStream.makeStream(of: Void.self)
        let gate = server.hold("/held", sendingFirst: 5000, .bytes(TestHTTPServer.pattern(10_000)))
        let holder = HTTPClient(policy: folder.policy(threshold: 100))
        let first = Task { try await holder.fetch(server.url("/held"), whenSpooling: { spooled.yield() }) }
        var events = spooling.makeAsyncIterator()
        _ = await events.next()
        // The first body holds the whole budget; the second waits in line until its deadline.
        let waiter = HTTPClient(policy: folder.policy(threshold: 100) { $0.deadline = .seconds(3) })
        let url = server.url("/bytes?size=3000")
        let error = await fetchError(waiter, url)
        #expect(error == .spoolBudgetExhausted(url: url, needed: 1000, budget: 1000), "\(String(describing: error))")
        gate.open()
        let body = try await first.value
        #expect(body.content.count == 10_000)
    }

    @Test func aReservationWaitsInLineAndIsGrantedOnRelease() async throws {
        let folder = try SpoolFolder(budget: 100)
        let spool = folder.spool
        let held = try #require(spool.reserve(80, until: .now + .seconds(300), isCancelled: { false }))
        #expect(spool.reserve(50, until: .now + .milliseconds(1), isCancelled: { false }) == nil)
        #expect(spool.reserve(20, until: .now + .seconds(300), isCancelled: { false }) != nil)
        let waiter = Task.detached { spool.reserve(500, until: .now + .seconds(300), isCancelled: { false }) != nil }
        held.release()
        #expect(await waiter.value)
        #expect(spool.reservedBytes == 0)
    }
}
