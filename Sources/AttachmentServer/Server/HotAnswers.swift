import Foundation
import PushAttach

/// The answers of recently hit cache entries, kept made: each entry's file stays open inside
/// `SharedResponse`s that libmicrohttpd sends as they are, so a hit on a hot link costs one
/// `stat` (`AttachmentCache.isCurrent`: the entry was not replaced or evicted) instead of
/// opening the entry, making a response and its headers, and closing the file again. In
/// `make serve-bench`'s warm rounds that was 4 of a hit's 14 system calls and a fifth of its CPU
/// time (116 -> 94 µs a hit).
///
/// An entry has one response, sent by every worker thread. libmicrohttpd locks a response while
/// it sends a piece of its file, so workers sending one link take turns; one response per worker
/// was tried and cost more: one link hit from 64 connections on 4 workers, 112 µs of CPU a hit
/// against 95 µs shared (alternated rounds, 2 cores).
///
/// Bounded by count and by bytes: an entry kept here holds a descriptor, and once evicted its
/// disk space, until it is dropped (found stale on its next hit, pushed out, or
/// `removeAll`). Only 200 answers are kept; a 304 is made per request, with the same headers.
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

    private let lock = NSLock()
    private var answers: [String: Answer] = [:]
    private var bytes = 0
    /// The most answers kept: each holds a descriptor.
    let countLimit: Int
    /// The most bytes of bodies kept: what evicted entries can hold on disk.
    let byteLimit: Int

    init(countLimit: Int = 1024, byteLimit: Int = 64 << 20) {
        self.countLimit = countLimit
        self.byteLimit = byteLimit
    }

    /// The answer kept for the cache key `digest`, or nil.
    func answer(for digest: String) -> Answer? { lock.withLock { answers[digest] } }

    /// Keeps `answer` for `digest`, unless its body alone is over the byte limit. When full,
    /// the table starts over (the hot links come back on their next hit).
    func keep(_ answer: Answer, for digest: String) {
        let length = answer.response.length
        guard length <= byteLimit else { return }
        // Released after the lock: the last reference to a response closes its file.
        let dropped: [Answer] = lock.withLock {
            var dropped: [Answer] = []
            if let old = answers.removeValue(forKey: digest) {
                bytes -= old.response.length
                dropped.append(old)
            }
            if answers.count >= countLimit || bytes + length > byteLimit {
                dropped.append(contentsOf: answers.values)
                answers.removeAll(keepingCapacity: true)
                bytes = 0
            }
            answers[digest] = answer
            bytes += length
            return dropped
        }
        withExtendedLifetime(dropped) {}
    }

    /// Drops the answer kept for `digest` (its entry is no longer current).
    func drop(_ digest: String) {
        let dropped: Answer? = lock.withLock {
            guard let old = answers.removeValue(forKey: digest) else { return nil }
            bytes -= old.response.length
            return old
        }
        withExtendedLifetime(dropped) {}
    }

    /// Drops every answer.
    func removeAll() {
        let dropped: [String: Answer] = lock.withLock {
            defer {
                answers = [:]
                bytes = 0
            }
            return answers
        }
        withExtendedLifetime(dropped) {}
    }

    /// Answers kept (descriptors held), and their bodies' bytes.
    var usage: (count: Int, bytes: Int) { lock.withLock { (answers.count, bytes) } }
}
