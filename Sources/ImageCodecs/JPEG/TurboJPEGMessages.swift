internal import CTurboJPEG
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Makes libjpeg's message text trustworthy under concurrency.
///
///     let outcome = TurboJPEGMessages.call(handle) { raw in tjDecompress2(raw, ...) }
///     outcome.status; outcome.message; outcome.isWarning
///
/// TurboJPEG 2.1 keeps its own errors per handle, but its `output_message` formats every libjpeg
/// error and warning ("Premature end of JPEG file", "Corrupt JPEG data: bad Huffman code") into
/// one process-wide `errStr`, which `tjGetErrorStr2` returns: two threads decoding at once can
/// read each other's words, and the damage policy and `classify` decide by those words. Whether
/// a call warned or failed is per handle and reliable; only the text is not. So every
/// decompress call runs under a shared lock, and a call that failed or warned is run again
/// alone (the lock held exclusively), on a fresh handle (a handle that failed keeps stale marker
/// state), and its words are read then. Clean calls pay an uncontended lock; failures pay one
/// more call. (The race needs two warnings within one decode's span; no test replays it.)
enum TurboJPEGMessages {
    struct Outcome {
        var status: Int32
        /// The call's own message, when it failed or warned.
        var message: String?
        var isWarning: Bool
    }

    private static let lock = ReadWriteLock()

    /// Runs `body` on `handle`; on failure, again on a fresh handle with nothing else running.
    static func call(_ handle: TurboJPEGHandle, _ body: (tjhandle) -> Int32) -> Outcome {
        let status = lock.reading { body(handle.raw) }
        guard status != 0 else { return Outcome(status: 0, message: nil, isWarning: false) }
        handle.isReusable = false
        return lock.writing {
            guard let fresh = try? TurboJPEGHandle(.decompress) else {
                return Outcome(status: status, message: handle.lastError, isWarning: handle.lastErrorIsWarning)
            }
            let again = body(fresh.raw)
            return Outcome(
                status: again, message: again != 0 ? fresh.lastError : nil, isWarning: fresh.lastErrorIsWarning)
        }
    }
}

/// A pthread read-write lock.
final class ReadWriteLock: @unchecked Sendable {
    private let raw = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)

    init() { precondition(pthread_rwlock_init(raw, nil) == 0, "pthread_rwlock_init failed") }

    deinit {
        pthread_rwlock_destroy(raw)
        raw.deallocate()
    }

    func reading<R>(_ body: () -> R) -> R {
        pthread_rwlock_rdlock(raw)
        defer { pthread_rwlock_unlock(raw) }
        return body()
    }

    func writing<R>(_ body: () -> R) -> R {
        pthread_rwlock_wrlock(raw)
        defer { pthread_rwlock_unlock(raw) }
        return body()
    }
}
