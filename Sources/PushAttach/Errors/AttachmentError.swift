import Fetch
import Foundation
import ImageEngine
import MediaTypes
import SystemSupport

/// Why an attachment could not be prepared, or a thumbnail made: the one error type of
/// `PushAttach`.
///
///     do {
///         _ = try await AttachmentPreparer.shared.prepare(url, into: folder)
///     } catch {
///         print(error.kind, error.errorCode as Any, error.reason)   // .downloadFailed nil "… HTTP 404 …"
///     }
///
/// `kind` says which stage failed, `underlying` carries that stage's own error when there is
/// one, `errorCode` the `UNErrorCode` iOS would give the file (on rejections iOS would make too),
/// and `reason` says what is wrong and what to do, naming settings as this library spells them.
public struct AttachmentError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// Which stage failed.
    public enum Kind: Sendable, Hashable {
        /// The URL is not an absolute `http` or `https` URL.
        case invalidURL
        /// The fetch policy refused the URL before connecting: a private or loopback address
        /// (`FetchPolicy.allowPrivateNetworks`), a host outside `FetchPolicy.allowedHosts`, a
        /// scheme other than `http`/`https`.
        case blocked
        /// The download failed: HTTP status, timeout, connection, TLS, too many redirects.
        case downloadFailed
        /// The body is over the cap for its kind of media (iOS's cap, or the image input cap).
        case tooLarge
        /// The bytes are not something iOS takes and cannot be made into it: an unsupported
        /// type, a corrupt file, a pixel bomb. `errorCode` is set when iOS would refuse it too.
        case rejected
        /// The engine or a check failed on bytes it accepted (no size fits the byte cap …).
        case processingFailed
        /// The attachment could not be written into the folder (not writable, disk full, the
        /// folder is held by another process).
        case writeFailed
        /// An argument is out of range (a thumbnail side below 1, a quality outside 1...100).
        case invalidArgument
        /// The calling task was cancelled before the item finished; nothing was left on disk.
        case cancelled
    }

    /// The error of the stage that failed, when it has one of its own.
    public enum Underlying: Sendable, Equatable {
        /// The download's error.
        case fetch(FetchError)
        /// The container's error: writing a file, the folder's lock.
        case container(ContainerError)
        /// The image engine's error.
        case processing(ProcessingError)
    }

    /// Which stage failed.
    public var kind: Kind
    /// The URL the item was prepared from; nil for calls on bytes (`Thumbnail`).
    public var url: URL?
    /// The id of the request that failed (`AttachmentRequest.id`); nil when none was given.
    public var requestID: String?
    /// The `UNErrorCode` iOS would give the file, when it would refuse it.
    public var errorCode: UNErrorCode?
    /// What is wrong, and what to do.
    public var reason: String
    /// The failing stage's own error, when it has one.
    public var underlying: Underlying?
    /// Why the bytes are refused, as data (`kind` `.rejected` and `.tooLarge`, and
    /// `.processingFailed` when no size fits): switch on it rather than on `reason`.
    ///
    ///     if case .notMedia(let looksLike)? = error.refusal { print(looksLike) }   // .html
    public var refusal: Refusal?
    /// What was noticed on the way (claims that disagreed with the bytes, codec warnings).
    public var warnings: [String]

    /// An error of `kind` for `url`.
    public init(
        kind: Kind, url: URL? = nil, errorCode: UNErrorCode? = nil, reason: String, underlying: Underlying? = nil,
        warnings: [String] = []
    ) {
        self.kind = kind
        self.url = url
        self.errorCode = errorCode
        self.reason = reason
        self.underlying = underlying
        self.warnings = warnings
    }

    /// `<url>: <reason>` (with the error code when there is one), the URL without credentials;
    /// the reason alone when it names the URL already (a download's reasons do).
    public var description: String {
        let code = errorCode.map { " (UNErrorCode \($0))" } ?? ""
        if case .fetch = underlying { return reason + code }
        guard let url else { return reason + code }
        return "\(DisplayText.withoutCredentials(url.absoluteString)): \(reason)\(code)"
    }

    /// `description`, for `localizedDescription` (which would otherwise be "The operation could
    /// not be completed").
    public var errorDescription: String? { description }
}
