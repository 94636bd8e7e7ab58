import PushAttach

extension AttachmentError {
    /// The HTTP status a server answers when preparing an attachment failed: the caller's
    /// mistakes are 4xx, the media's origin failing is 502/504, our own trouble is 5xx.
    var httpStatus: Int {
        switch kind {
        case .invalidURL, .invalidArgument: 400  // Bad Request: fix the request
        case .blocked: 403  // Forbidden: a private address, a host not allowed
        case .tooLarge: 413  // Content Too Large: over iOS's cap for its kind
        case .rejected, .processingFailed: 422  // Unprocessable Content: not media iOS can show
        case .downloadFailed:
            if case .fetch(.timedOut) = underlying { 504 } else { 502 }  // the origin failed
        case .writeFailed: 503  // Service Unavailable: disk full, folder held by another process
        case .cancelled: 503
        }
    }
}
