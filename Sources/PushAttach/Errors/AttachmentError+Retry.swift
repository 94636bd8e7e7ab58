import Fetch
import Foundation
import MediaTypes
import SystemSupport

extension AttachmentError {
    /// Whether the same call may succeed if made again later, unchanged: for a download's error,
    /// `FetchError.isRetryable` (the one rule: a broken connection, a DNS failure, a timeout, HTTP
    /// 408, 429 and 5xx but 501 and 505, the spool budget full for now); and a folder a batch
    /// holds for now. False for what will fail the same way again: any other 4xx, a refused
    /// address or host, a file iOS refuses, an invalid argument, a full or read-only disk, a
    /// cancellation. A DNS failure counts as passing (a resolver may answer later), so a queue
    /// should still cap its retries.
    ///
    ///     catch where error.isRetryable {
    ///         queue.retry(job, after: error.retryAfter ?? .seconds(30))
    ///     }
    public var isRetryable: Bool {
        switch underlying {
        case .fetch(let error): error.isRetryable
        case .container(.locked): true
        case .container, .processing, nil: false
        }
    }

    /// Whether the call ended because its task was cancelled (or its preparer shut down):
    /// nothing was written, and nothing went wrong that a retry would change.
    ///
    ///     catch where error.isCancellation { return }   // the caller went away
    public var isCancellation: Bool { kind == .cancelled }

    /// How long the origin asked to wait before trying again (its `Retry-After` header on a 429
    /// or 503, delay-seconds or an HTTP-date), also when the call's deadline
    /// (`Configuration.callDeadline`) passed after such an answer; nil when it did not say.
    ///
    ///     error.retryAfter   // .seconds(7) for "HTTP/1.1 503", "Retry-After: 7"
    public var retryAfter: Duration? {
        if case .fetch(let error) = underlying { return error.retryAfter }
        return nil
    }
}
