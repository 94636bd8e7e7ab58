import Foundation
import PushAttach
import TestSupport
import Testing

@Suite(.tags(.slow), .notInFastTier) struct AttachmentCacheTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")

    func key(_ name: String) -> AttachmentCache.Key {
        AttachmentCache.Key(AttachmentLink(source: URL(string: "https://cdn.example.com/\(name)")!))
    }

    @discardableResult
    func storeBytes(_ count: Int, _ cache: AttachmentCache, as name: String) throws -> AttachmentCache.Entry {
        try cache.store(Data(repeating: 7, count: count), format: .jpeg, for: key(name))
    }

    /// Sets the modification time of `name`'s entry file `seconds` into the past. The cache's
    /// clock is its files' modification times (shared by every replica on the folder), so this
    /// is how a test moves time forward for one entry, with no waiting.
    func age(_ name: String, by seconds: TimeInterval) throws {
        let digest = key(name).digest
        let file = folder.appendingPathComponent("entries/\(digest.prefix(2))/\(digest)")
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -seconds)], ofItemAtPath: file.path)
    }

    @Test func aStoredEntryReadsBackWithItsAnswer() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try AttachmentCache(folder: folder)
        #expect(cache.entry(for: key("a")) == nil)
        try storeBytes(1000, cache, as: "a")
        let entry = try #require(cache.entry(for: key("a")))
        #expect(entry.answer.status == 200)
        #expect(entry.answer.contentType == "image/jpeg")
        #expect(entry.answer.typeHint == "public.jpeg")
        #expect(entry.answer.byteCount == 1000)
        #expect(try entry.body() == Data(repeating: 7, count: 1000))
        #expect(entry.answer.sha256?.count == 64)
        // A second cache on the same folder (another process) sees it.
        let other = try AttachmentCache(folder: folder)
        #expect(try other.entry(for: key("a"))?.body() == Data(repeating: 7, count: 1000))
    }

    /// The audit's race between replicas on a tiny cache, made certain: another process's eviction
    /// runs right after the rename. The entry is answered from the descriptor it was written
    /// through, and no error names a path.
    @Test func anEntryEvictedByAnotherReplicaRightAfterItsRenameIsStillAnswered() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = try CacheStore(root: folder, capacity: 1, rejectionTTL: 60)
        let other = try CacheStore(root: folder, capacity: 1, rejectionTTL: 60)
        let removed = LockedCount()
        writer.afterRenameForTesting = { removed.add(other.evict()) }
        let name = key("raced").digest
        let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let entry = try writer.store(
            name, record: CacheStore.Record(status: 200, contentType: "image/jpeg", sha256: "x", length: 0), body: body)
        #expect(removed.value == 1, "the other replica removed the entry between the rename and the answer")
        #expect(writer.open(name) == nil && other.open(name) == nil, "gone from the folder")
        #expect(entry.record.length == body.count)
        #expect(try entry.body() == body)
    }

    /// `work` is reached from the cache folder's descriptor: a link there is refused, and nothing
    /// is written where it points.
    @Test func aLinkAtWorkIsRefusedAndNotFollowed() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let elsewhere = folder.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let cacheFolder = folder.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: cacheFolder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: cacheFolder.appendingPathComponent("work"), withDestinationURL: elsewhere)
        #expect {
            _ = try AttachmentCache(folder: cacheFolder)
        } throws: { error in
            guard let error = error as? AttachmentError, case .container(.unsafeEntry(let path, .symbolicLink)) = error.underlying
            else { return false }
            return path.hasSuffix("/work") && error.kind == .writeFailed
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    }

    /// A failure of the server's own disk says what failed, never where.
    @Test func aCacheFailureTellsTheClientNoPath() {
        let path = "/srv/secret-layout/entries/ab/" + String(repeating: "ab", count: 32)
        let failures = [
            AttachmentError(
                kind: .writeFailed, reason: "the attachment cache: open(2) failed for \(path)",
                underlying: .container(.system(call: "open", path: path, errno: ENOENT))),
            AttachmentError(
                kind: .writeFailed, reason: "\(path) is a symbolic link",
                underlying: .container(.unsafeEntry(path: path, found: .symbolicLink))),
        ]
        for failure in failures {
            let problem = AttachmentProblem(failure)
            #expect(problem.status == 503)
            #expect(!problem.reason.contains("/srv"), "\(problem.reason)")
            #expect(!String(decoding: problem.json, as: UTF8.self).contains("secret-layout"))
        }
    }

    /// Two processes on one folder (two caches here): the second's claim waits while the first
    /// holds the key's lease, then gets the entry it stored; a lease let go without an entry
    /// (a holder that failed or died) is taken over.
    @Test func aClaimWaitsForTheLeaseHolderAndTakesOverWhenItLetsGo() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try AttachmentCache(folder: folder)
        let second = try AttachmentCache(folder: folder)
        guard case .lease(let lease) = try await first.claim(key("k")) else {
            Issue.record("a new key's lease is free")
            return
        }
        let waiter = Task { try await second.claim(key("k"), checkingEvery: .milliseconds(10)) }
        try storeBytes(1000, first, as: "k")
        lease.release()
        guard case .entry(let entry) = try await waiter.value else {
            Issue.record("the waiter gets the entry the holder stored")
            return
        }
        #expect(try entry.body() == Data(repeating: 7, count: 1000))

        guard case .lease(let failed) = try await first.claim(key("f")) else {
            Issue.record("a new key's lease is free")
            return
        }
        let takeover = Task { try await second.claim(key("f"), checkingEvery: .milliseconds(10)) }
        failed.release()
        guard case .lease(let taken) = try await takeover.value else {
            Issue.record("nothing was stored: the waiter takes the lease over")
            return
        }
        taken.release()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("leases").path).isEmpty)
    }

    @Test func refusalsExpireAfterTheirTTLAndOtherFailuresAreNotKept() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try AttachmentCache(folder: folder, rejectionTTL: .seconds(60))
        let refusal = AttachmentProblem(status: 422, error: "rejected", errorCode: 101, reason: "not media")
        try cache.store(refusal, for: key("r"))
        let entry = try #require(cache.entry(for: key("r")))
        #expect(entry.answer.status == 422)
        #expect(try JSONDecoder().decode(AttachmentProblem.self, from: entry.body()) == refusal)
        try age("r", by: 50)
        #expect(cache.entry(for: key("r"))?.answer.status == 422, "50 s old: within its TTL")
        try age("r", by: 70)
        #expect(cache.entry(for: key("r")) == nil, "70 s old: past its TTL")
        // A prepared file does not expire.
        try storeBytes(1000, cache, as: "p")
        try age("p", by: 70)
        #expect(cache.entry(for: key("p"))?.answer.status == 200)
        try cache.store(AttachmentProblem(status: 502, error: "origin_failed", reason: "HTTP 500"), for: key("s"))
        #expect(cache.entry(for: key("s")) == nil, "a 502 is not cached")
    }

    /// What a server keeping an entry open between hits asks on each hit: the same file under the
    /// name (one stat), or not any more.
    @Test func anEntryIsCurrentUntilReplacedOrRemovedAndARefusalUntilItsTTL() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try AttachmentCache(folder: folder, rejectionTTL: .seconds(60))
        let first = try storeBytes(1000, cache, as: "a")
        let opened = try #require(cache.entry(for: key("a")))
        #expect(cache.isCurrent(first) && cache.isCurrent(opened))

        // Another process stores the key again: a new file under the name.
        let other = try AttachmentCache(folder: folder)
        let second = try other.store(Data(repeating: 9, count: 1000), format: .jpeg, for: key("a"))
        #expect(!cache.isCurrent(first) && !cache.isCurrent(opened), "replaced (same size, another file)")
        #expect(cache.isCurrent(second))

        // Evicted (or removed by hand): not current, and nothing is created by asking.
        let digest = key("a").digest
        try FileManager.default.removeItem(at: folder.appendingPathComponent("entries/\(digest.prefix(2))/\(digest)"))
        #expect(!cache.isCurrent(second))
        #expect(cache.entry(for: key("a")) == nil)

        // A hit on a 200 older than a minute moves its time forward, as opening it does.
        let kept = try storeBytes(1000, cache, as: "lru")
        try age("lru", by: 600)
        #expect(cache.isCurrent(kept))
        let file = folder.appendingPathComponent("entries/\(key("lru").digest.prefix(2))/\(key("lru").digest)")
        let modified = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date)
        #expect(Date().timeIntervalSince(modified) < 60, "touched by the hit")

        // A refusal is current within its TTL only.
        try cache.store(AttachmentProblem(status: 422, error: "rejected", errorCode: 101, reason: "not media"), for: key("r"))
        let refusal = try #require(cache.entry(for: key("r")))
        #expect(cache.isCurrent(refusal))
        try age("r", by: 70)
        #expect(!cache.isCurrent(refusal))
    }

    @Test func theLeastRecentlyUsedGoFirstAndAJustStoredEntryCanStillBeSent() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try AttachmentCache(folder: folder, capacity: 2600)
        // Last used 20 s and 10 s ago (within the minute a hit leaves a file's time alone).
        try storeBytes(1000, cache, as: "old")
        try age("old", by: 20)
        try storeBytes(1000, cache, as: "mid")
        try age("mid", by: 10)
        // Storing a third passes the capacity: the oldest goes, until under 90 %.
        let newest = try storeBytes(1000, cache, as: "new")
        #expect(cache.entry(for: key("old")) == nil)
        #expect(cache.entry(for: key("mid")) != nil)
        #expect(cache.entry(for: key("new")) != nil)
        #expect(cache.usage <= 2600)
        #expect(try newest.body().count == 1000)

        // An entry larger than the whole cache is evicted at once, yet the returned entry is whole.
        let huge = try storeBytes(5000, cache, as: "huge")
        #expect(cache.entry(for: key("huge")) == nil)
        #expect(try huge.body() == Data(repeating: 7, count: 5000))
        let (descriptor, offset) = try #require(huge.duplicateDescriptor())
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 5000)
        #expect(pread(descriptor, &buffer, 5000, off_t(offset)) == 5000)
        #expect(buffer.allSatisfy { $0 == 7 })
    }
}

@Suite(.tags(.slow), .notInFastTier) struct SingleFlightTests {
    final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var value = 0
        func add() { lock.withLock { value += 1 } }
    }

    /// Fifty callers join one key while its work is held: one run, fifty answers.
    @Test func concurrentCallersOfOneKeyShareOneRun() async {
        let flights = SingleFlight<Int>(limit: 4)
        let runs = Counter()
        let release = Watched(false)
        let answers = Watched([Int?]())
        for caller in 0..<50 {
            let joined = flights.join(
                "k", timeout: HangGuard.wait,
                work: {
                    runs.add()
                    _ = await release.wait { $0 }
                    return 42
                }
            ) { value in answers.update { $0.append(value) } }
            #expect(joined == (caller == 0 ? .started : .waiting))
        }
        release.update { $0 = true }
        let values = await answers.wait { $0.count == 50 }
        #expect(values?.allSatisfy { $0 == 42 } == true)
        #expect(runs.value == 1)
        #expect(flights.inFlight == 0)
    }

    @Test func aWaiterGivesUpAtItsDeadlineWhileTheWorkGoesOn() async throws {
        let flights = SingleFlight<Int>(limit: 1)
        let release = Watched(false)
        let finished = Counter()
        let early = await flights.value(for: "slow", timeout: .milliseconds(100)) {
            _ = await release.wait { $0 }
            finished.add()
            return 1
        }
        #expect(early == nil)
        #expect(flights.inFlight == 1)
        #expect(flights.unattended == 1)
        // The limit is reached: another key is refused at once, without running.
        let refused = flights.join("other", timeout: .seconds(1), work: { 2 }) { _ in Issue.record("not called") }
        #expect(refused == .full)
        // The work went on: a later caller of the key joins it and gets its value when it ends.
        let late = Watched([Int?]())
        let joined = flights.join("slow", timeout: HangGuard.wait, work: { 2 }) { value in late.update { $0.append(value) } }
        #expect(joined == .waiting)
        release.update { $0 = true }
        #expect(await late.wait { !$0.isEmpty } == [1])
        #expect(finished.value == 1)
        #expect(flights.inFlight == 0)
    }
}

/// A count shared with a closure that may run on another thread.
final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add(_ amount: Int) { lock.withLock { count += amount } }
}
