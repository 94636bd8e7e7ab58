import Foundation
import MediaTypes
import SystemSupport

/// How one call of an `AttachmentPreparer` ended, and where its time went: what
/// `Configuration.onEvent` is told, for a service's logs and metrics.
///
///     configuration.onEvent = { event in
///         print(event.outcome, event.url, event.download, event.process, event.write)
///     }
public struct AttachmentEvent: Sendable, Hashable {
    /// How the call ended.
    public enum Outcome: String, Sendable, Hashable {
        /// An attachment was written.
        case prepared
        /// Refused for what it is (a type iOS refuses, damaged, too large).
        case rejected
        /// Not obtained or not written (network, HTTP, disk).
        case failed
        /// The calling task was cancelled; nothing was written.
        case cancelled
    }

    /// The URL the call was for (`bytes:<filename>` for bytes, `invalid:<the text,
    /// percent-encoded>` for a text that is no URL).
    public var url: URL
    /// The request's id (`AttachmentRequest.id`), when it had one.
    public var requestID: String?
    /// How it ended.
    public var outcome: Outcome
    /// What was done, in `verify`'s words; nil when the bytes were never judged.
    public var action: AttachmentReport.Action?
    /// The written file's format, or the input's as far as it was read.
    public var format: MediaFormat?
    /// Bytes: the written attachment's for a prepared item, else what was fetched (or given);
    /// nil when nothing came.
    public var byteCount: Int?
    /// The `UNErrorCode` iOS would give, on a refusal iOS would make too.
    public var errorCode: UNErrorCode?
    /// Why it was rejected, as data; nil unless rejected.
    public var refusal: Refusal?
    /// Why it was rejected or failed; nil when prepared.
    public var reason: String?
    /// Downloading (or reading the file), including waits for the host's connection slots.
    public var download: Duration
    /// Waiting for memory, sniffing, planning and the engine.
    public var process: Duration
    /// Writing the attachment and its thumbnail.
    public var write: Duration

    /// The event of a call refused before anything was fetched or read (an invalid URL, a scheme
    /// other than http and https, a header that cannot be sent, a preparer shut down), or whose
    /// folder could not be taken: `failed` (`cancelled` for a cancelled call), the error's reason,
    /// no time spent.
    init(refused error: AttachmentError, url: URL, requestID: String?) {
        self.url = url
        self.requestID = requestID
        (download, process, write) = (.zero, .zero, .zero)
        outcome = error.kind == .cancelled ? .cancelled : .failed
        reason = error.reason
    }

    init(_ outcome: ItemOutcome, url: URL, requestID: String?, names: SettingNames = .library) {
        self.url = url
        self.requestID = requestID
        (download, process, write) = (.zero, .zero, .zero)
        switch outcome {
        case .cancelled: self.outcome = .cancelled
        case .fatal(let error):
            self.outcome = .failed
            reason = error.description(naming: names)
        case .finished(let entry, let end):
            switch end {
            case .prepared: self.outcome = .prepared
            case .refused(let refusal):
                self.outcome = .rejected
                self.refusal = refusal
                errorCode = refusal.code
            case .failed: self.outcome = .failed
            }
            action = entry.plannedAction
            format = entry.mediaFormat
            byteCount = entry.bytes
            reason = entry.reason
            download = .milliseconds(entry.timings.downloadMs)
            process = .milliseconds(entry.timings.processMs)
            write = .milliseconds(entry.timings.writeMs)
        }
    }
}
