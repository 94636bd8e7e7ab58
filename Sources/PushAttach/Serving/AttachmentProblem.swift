import Fetch
import Foundation
import MediaTypes
import SystemSupport

/// The one JSON body every error answer of `pushattach serve` carries, and the HTTP status that
/// goes with an `AttachmentError`:
///
///     {"error":"rejected","errorCode":101,"reason":"the bytes are text, not media","retryAfter":null,"status":422}
///
/// `error` is a fixed word a client can switch on: `rejected` (422: iOS would refuse it and it
/// cannot be made into an attachment), `not_found` (404 at the origin), `origin_failed` (502),
/// `timeout` (504: past the server's deadline or the origin's), `forbidden` (403: bad signature,
/// source not allowed), `bad_request` (400), `no_route` (404), `method_not_allowed` (405),
/// `unavailable` (503: over capacity, draining, or the cache not writable; see `Retry-After`).
/// `errorCode` is the `UNErrorCode` iOS would give the file, or null. `retryAfter` is how many
/// seconds to wait before asking again (also sent as the `Retry-After` header), or null.
public struct AttachmentProblem: Sendable, Hashable, Codable {
    /// The HTTP status.
    public var status: Int
    /// The fixed word for the class of failure.
    public var error: String
    /// The `UNErrorCode` (`rawValue`) iOS would give the file, when it would refuse it.
    public var errorCode: Int?
    /// What is wrong, and what to do.
    public var reason: String
    /// How long to wait before asking again: the origin's own `Retry-After` on a 429 or 503, the
    /// time a preparation still has on a 504, a second when the server is busy; nil when no
    /// advice is given. Whole seconds in the JSON and the header (rounded up).
    public var retryAfter: Duration?

    /// A problem answered with `status`.
    public init(status: Int, error: String, errorCode: Int? = nil, reason: String, retryAfter: Duration? = nil) {
        self.status = status
        self.error = error
        self.errorCode = errorCode
        self.reason = reason
        self.retryAfter = retryAfter
    }

    /// The answer to a failed preparation: 404 when the origin said 404 or 410, 504 for a
    /// timeout, 502 for other download failures (both with the origin's `Retry-After` advice when
    /// it gave one), 403 for a refused source, 422 for a file that cannot be an attachment, 400 for
    /// a bad argument, 503 when the cache folder cannot be written or the call was cancelled.
    public init(_ failure: AttachmentError) {
        let code = failure.errorCode?.rawValue
        switch failure.kind {
        case .invalidURL, .invalidArgument:
            self.init(status: 400, error: "bad_request", reason: failure.reason)
        case .blocked:
            self.init(status: 403, error: "forbidden", reason: failure.reason)
        case .downloadFailed:
            self.init(download: failure)
        case .tooLarge, .rejected, .processingFailed:
            self.init(status: 422, error: "rejected", errorCode: code, reason: failure.reason)
        case .writeFailed:
            self.init(status: 503, error: "unavailable", reason: Self.ownDiskFailure(failure.underlying))
        case .cancelled:
            self.init(status: 503, error: "unavailable", reason: failure.reason)
        }
    }

    private init(download failure: AttachmentError) {
        switch failure.underlying {
        case .fetch(.spoolFailed):
            // The server's own disk, not the origin.
            self.init(status: 503, error: "unavailable", reason: Self.ownDiskFailure(failure.underlying))
        case .fetch(.httpStatus(_, let status, _)) where status == 404 || status == 410:
            self.init(status: 404, error: "not_found", reason: failure.reason)
        case .fetch(.timedOut):
            self.init(status: 504, error: "timeout", reason: failure.reason, retryAfter: failure.retryAfter)
        default:
            self.init(status: 502, error: "origin_failed", reason: failure.reason, retryAfter: failure.retryAfter)
        }
    }

    /// What failed on the server's own disk (the cache folder, the download spool), without its
    /// paths: a client cannot act on them, and they would tell anyone the server's layout.
    private static func ownDiskFailure(_ underlying: AttachmentError.Underlying?) -> String {
        let call: (String, Int32)? =
            switch underlying {
            case .container(.system(let call, _, let code)): (call, code)
            case .fetch(.spoolFailed(_, let failure)): (failure.call, failure.errno)
            default: nil
            }
        guard let (name, code) = call else {
            return "the server's cache folder cannot be used now; try again later"
        }
        return "the server could not write to its own disk (\(name): \(SystemCall.message(for: code))); try again later"
    }

    /// `retryAfter` in whole seconds, rounded up (at least 1): the `Retry-After` header's value
    /// and the JSON's `retryAfter`.
    public var retryAfterSeconds: Int? {
        retryAfter.map { duration in
            let parts = duration.components
            return max(1, Int(parts.seconds) + (parts.attoseconds > 0 ? 1 : 0))
        }
    }

    /// The JSON body (keys sorted, one line).
    public var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = (try? encoder.encode(self)) ?? Data("{\"status\":\(status)}".utf8)
        data.append(0x0A)
        return data
    }

    /// Whether a cache may keep this answer for its refusal TTL: a file that cannot be an
    /// attachment, or an origin's 404, answers the same until the origin changes. Timeouts and
    /// other failures are not kept.
    public var isCacheable: Bool { status == 422 || status == 404 }

    // Encodes `errorCode` and `retryAfter` as null when there is none, so every body has the
    // same five keys.
    private enum CodingKeys: String, CodingKey { case status, error, errorCode, reason, retryAfter }

    /// Decodes the five keys (`retryAfter` in seconds; a body without it has none).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(Int.self, forKey: .status)
        error = try container.decode(String.self, forKey: .error)
        errorCode = try container.decodeIfPresent(Int.self, forKey: .errorCode)
        reason = try container.decode(String.self, forKey: .reason)
        retryAfter = try container.decodeIfPresent(Int.self, forKey: .retryAfter).map { .seconds($0) }
    }

    /// Encodes all five keys, `errorCode` and `retryAfter` (whole seconds) as null when there is none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(error, forKey: .error)
        try container.encode(errorCode, forKey: .errorCode)
        try container.encode(reason, forKey: .reason)
        try container.encode(retryAfterSeconds, forKey: .retryAfter)
    }
}
