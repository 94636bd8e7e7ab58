import PushAttach

extension AttachmentError {
    /// The HTTP status a server answers when preparing an attachment failed: the caller's
    /// mistakes are 4xx; the media's origin refusing is 502, failing for now 503 or 504 (worth
    /// a retry: `isRetryable`, after `retryAfter`); our own trouble is 503 or 507.
    var httpStatus: Int {
        switch kind {
        case .invalidURL, .invalidArgument: 400  // Bad Request: fix the request
        case .blocked: 403  // Forbidden: a private address, a host not allowed
        case .tooLarge: 413  // Content Too Large: over iOS's cap for its kind
        case .rejected, .processingFailed: 422  // Unprocessable Content: not media iOS can show
        case .downloadFailed:
            if case .fetch(.timedOut) = underlying {
                504  // Gateway Timeout: the origin was too slow; try again
            } else if isRetryable {
                503  // the origin is unavailable for now (5xx, 429, connection): try again, after `retryAfter`
            } else {
                502  // Bad Gateway: the origin refused (404, 401): the same request will fail again
            }
        case .writeFailed: isRetryable ? 503 : 507  // held by a batch for now; disk full or read-only
        case .cancelled: 503
        }
    }
}
