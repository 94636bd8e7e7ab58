import Foundation
import PushAttach

/// The answers of recently hit cache entries, kept made: each entry's file stays open inside a
/// `SharedResponse` that libmicrohttpd sends as it is, so a hit on a hot link costs one `stat`
/// (`AttachmentCache.isCurrent`: the entry was not replaced or evicted) instead of opening the
/// entry, making a response and its headers, and closing the file again. In
/// `make serve-bench`'s warm rounds such a hit makes 12 system calls where opening the entry
/// makes 14 (one `fstatat` for openat, fstat and close), and costs 94 µs of CPU against 116.
///
/// An entry has one response, sent by every worker thread. libmicrohttpd locks a response while
/// it sends a piece of its file, so workers sending one link take turns; one response per worker
/// costs more: one link hit from 64 connections on 4 workers, 112 µs of CPU a hit against 95 µs
/// shared (alternated rounds, 2 cores, the file in the page cache). A piece read from a slow
/// disk holds the others sending that link for as long.
///
/// Bounded by count (a descriptor each; at most a quarter of the process's descriptor limit) and
/// by bytes (what entries evicted meanwhile can keep on disk). An answer is dropped when found
/// stale on its next hit, when a send of it ends in an error, when it has not been hit for
/// `idleLimit` and another is kept, or as the least recently hit when the table is full. Only 200
/// answers are kept; a 304 is made per request, with the same headers.
final class HotAnswers: @unchecked Sendable {
    /// One kept answer.
    struct Answer {
        /// The entry it was made from, for `AttachmentCache.isCurrent`.
        let entry: AttachmentCache.Entry
        let response: SharedResponse
        /// The strong ETag (the body's SHA-256, quoted), for `If-None-Match`.
        let etag: String
        /// The headers of a 304 to a client that has it.
        let notModifiedHeaders: [(String, String)]
    }

    private struct Kept {
        var answer: Answer
        var lastHit: ContinuousClock.Instant
    }

    private let lock = NSLock()
    private var kept: [String: Kept] = [:]
    private var bytes = 0
    /// The most answers kept: each holds a descriptor.
    let countLimit: Int
    /// The most bytes of bodies kept.
    let byteLimit: Int
    /// How long an answer not hit stays once another is kept.
    let idleLimit: Duration
    private let now: @Sendable () -> ContinuousClock.Instant

    /// - Parameters:
    ///   - countLimit: answers (descriptors) kept; nil: 1,024, or a quarter of the process's
    ///     descriptor limit if that is less.
    ///   - now: the clock (tests move it).
    init(
        countLimit: Int? = nil, byteLimit: Int = 64 << 20, idleLimit: Duration = .seconds(60),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.countLimit = countLimit ?? min(1024, Self.descriptorLimit / 4)
        self.byteLimit = byteLimit
        self.idleLimit = idleLimit
        self.now = now
    }

    /// The soft `RLIMIT_NOFILE` (`Int.max` when unlimited; 1,024 where it cannot be read).
    private static var descriptorLimit: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)
    }

    /// The answer kept for the cache key `digest`, or nil; a hit on it.
    func answer(for digest: String) -> Answer? {
        let time = now()
        return lock.withLock {
            guard let index = kept.index(forKey: digest) else { return nil }
            kept.values[index].lastHit = time
            return kept.values[index].answer
        }
    }

    /// Keeps `answer` for `digest`, unless its body alone is over the byte limit. Answers not hit
    /// for `idleLimit` go first, then the least recently hit until it fits.
    func keep(_ answer: Answer, for digest: String) {
        let length = answer.response.length
        guard countLimit > 0, length <= byteLimit else { return }
        let time = now()
        // Released after the lock: the last reference to a response closes its file.
        let dropped: [Kept] = lock.withLock {
            var dropped: [Kept] = []
            func remove(_ key: String) {
                guard let old = kept.removeValue(forKey: key) else { return }
                bytes -= old.answer.response.length
                dropped.append(old)
            }
            remove(digest)
            for (key, old) in kept where time - old.lastHit > idleLimit { remove(key) }
            while kept.count >= countLimit || bytes + length > byteLimit,
                let oldest = kept.min(by: { $0.value.lastHit < $1.value.lastHit })
            {
                remove(oldest.key)
            }
            kept[digest] = Kept(answer: answer, lastHit: time)
            bytes += length
            return dropped
        }
        withExtendedLifetime(dropped) {}
    }

    /// Drops the answer kept for `digest` if it is still `response` (its entry is no longer
    /// current, or a send of it failed), not one kept since.
    func drop(_ digest: String, ifStill response: SharedResponse) {
        let dropped: Kept? = lock.withLock {
            guard let old = kept[digest], old.answer.response === response else { return nil }
            kept[digest] = nil
            bytes -= old.answer.response.length
            return old
        }
        withExtendedLifetime(dropped) {}
    }

    /// Drops every answer.
    func removeAll() {
        let dropped: [String: Kept] = lock.withLock {
            defer {
                kept = [:]
                bytes = 0
            }
            return kept
        }
        withExtendedLifetime(dropped) {}
    }

    /// Answers kept (descriptors held), and their bodies' bytes.
    var usage: (count: Int, bytes: Int) { lock.withLock { (kept.count, bytes) } }
}
