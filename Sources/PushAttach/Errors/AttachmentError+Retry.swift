import Fetch
import Foundation
import MediaTypes
import SystemSupport

extension AttachmentError {
    /// Whether the same call may succeed if made again later, unchanged: the origin or the
    /// network failed for now (a timeout, a DNS failure, a broken connection, HTTP 408, 429 or
    /// 5xx but 501 and 505), the spool had no room for the moment, or a batch holds the folder.
    /// A DNS failure counts as passing (a resolver may answer later), so a queue should still
    /// cap its retries. False
    /// for what will fail the same way again: a 4xx, a refused address or host, a file iOS
    /// refuses, an invalid argument, a full or read-only disk, a cancellation.
    ///
    ///     catch let error as AttachmentError where error.isRetryable {
    ///         queue.retry(job, after: error.retryAfter ?? .seconds(30))
    ///     }
    public var isRetryable: Bool {
        switch underlying {
        case .fetch(let error):
            switch error {
            // 501 (not implemented) and 505 (version not supported) will not change.
            case .httpStatus(_, let status, _):
                return status == 408 || status == 429 || ((500...599).contains(status) && status != 501 && status != 505)
            case .timedOut, .connectionFailed, .spoolBudgetExhausted: return true
            // CURLE_COULDNT_RESOLVE_HOST (6): a resolver that failed now may answer later.
            case .transferFailed(_, let code, _): return code == 6
            default: return false
            }
        case .container(let error):
            if case .locked = error { return true }
            return false
        case .processing, nil:
            return false
        }
    }

    /// How long the origin asked to wait before trying again (its `Retry-After` header on a 429
    /// or 503, delay-seconds or an HTTP-date); nil when it did not say.
    ///
    ///     error.retryAfter   // .seconds(7) for "HTTP/1.1 503", "Retry-After: 7"
    public var retryAfter: Duration? {
        if case .fetch(.httpStatus(_, _, let after)) = underlying { return after }
        return nil
    }
}
