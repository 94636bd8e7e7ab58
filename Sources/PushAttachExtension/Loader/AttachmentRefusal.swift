import MediaTypes
import PushPayloads

/// Why a load gave no file: a case per cause, with what it needs to say so.
/// `LoadedAttachment.reason` is its `description`.
///
///     switch loaded.refusal {
///     case .timedOut?: content.body += " (image still loading)"
///     case .refused(.notMedia(let looksLike))?: log("the media URL gave \(looksLike.phrase)")
///     default: break
///     }
///
/// The first cases are about the payload and the download; the last two about the bytes,
/// each with the `UNErrorCode` iOS would give such a file (`errorCode`).
public enum AttachmentRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The payload names no media URL under any convention. `senderNote` is what `prepare
    /// --rewrite` wrote in place of media it refused (`pushattach_error`), when it did.
    case noMediaURL(senderNote: String?)
    /// The media URL is not an http(s) URL with a host.
    case unsupportedURL(String)
    /// The URL's host, or a redirect's, is not in `AttachmentLoader.Settings.allowedHosts`.
    case hostNotAllowed(host: String)
    /// The server answered with an HTTP status other than 2xx. `serverReason` is the reason
    /// `pushattach serve` gives in its error body, when the server is serve.
    case httpStatus(Int, url: String, serverReason: String?)
    /// The download failed before an answer: the connection, DNS, TLS.
    case downloadFailed(url: String, detail: String)
    /// More redirects than `AttachmentLoader.Settings.maxRedirects`.
    case tooManyRedirects(limit: Int)
    /// The download did not finish within the time budget; it was cancelled.
    case timedOut(budget: Duration)
    /// The caller cancelled the load (the extension's time ran out) before it finished.
    case cancelled
    /// The file could not be written in the folder given.
    case cannotWrite(path: String, detail: String)
    /// The bytes are refused, for the reason the shared planner gives (`Refusal`: not media,
    /// over the cap of its kind, damaged, a format iOS refuses that nothing converts …), the
    /// same reason `prepare`, `verify` and `serve` give.
    case refused(Refusal)
    /// iOS would refuse the file as it is (`iosCode`), and `pushattach serve` or `prepare` would
    /// make it one iOS takes (`action`: convert a WebP or HEIC, fit an image over 10 MB); the
    /// extension converts nothing.
    case needsPreparing(format: MediaFormat, action: Plan.Action, iosCode: UNErrorCode?)

    /// The `UNErrorCode` iOS would refuse such a file with (101 type, 102 size, 105 damaged); nil
    /// when the refusal is about the payload or the download.
    public var errorCode: Int? {
        switch self {
        case .refused(let refusal): refusal.code?.rawValue
        case .needsPreparing(_, _, let code): code?.rawValue
        default: nil
        }
    }

    /// What is wrong and what to do, one line.
    public var description: String {
        switch self {
        case .noMediaURL(let note?):
            "the sender's batch refused the media: \(note)"
        case .noMediaURL(nil):
            "the payload names no attachment URL (looked for \(Self.pushKeys))"
        case .unsupportedURL(let url):
            "'\(url)' is not an http or https URL with a host"
        case .hostNotAllowed(let host):
            "the host \(host) is not in AttachmentLoader.Settings.allowedHosts"
        case .httpStatus(let status, let url, let reason):
            "the server answered HTTP \(status) for \(url)" + (reason.map { ": \($0)" } ?? "")
        case .downloadFailed(let url, let detail):
            "the download of \(url) failed: \(detail)"
        case .tooManyRedirects(let limit):
            "more than \(limit) redirects (AttachmentLoader.Settings.maxRedirects)"
        case .timedOut(let budget):
            "not downloaded within the time budget of \(Self.seconds(budget)); the download was cancelled"
        case .cancelled:
            "cancelled before the download finished"
        case .cannotWrite(let path, let detail):
            "cannot write \(path): \(detail)"
        case .refused(let refusal):
            refusal.description(naming: .library)
        case .needsPreparing(let format, let action, _):
            "\(format.displayName) as it is is not a file iOS attaches (\(Self.needs(action)) it first); send it through pushattach serve or prepare"
        }
    }

    /// The conventions' keys a push can carry (not `url`, which in a push is the link opened on tap).
    static let pushKeys = PayloadConventions.all.filter { $0.name != nil }.map(\.key).joined(separator: ", ")

    /// What `prepare` would do, as a verb phrase.
    private static func needs(_ action: Plan.Action) -> String {
        switch action {
        case .convert: "convert"
        case .fit: "fit"
        case .reencodeAnimation: "re-encode the animation of"
        case .firstFrame: "keep the first frame of"
        case .rename, .passThrough, .refuse: "rename"
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        let tenths = Int(fraction / 100_000_000_000_000_000)
        return tenths == 0 ? "\(whole) s" : "\(whole).\(tenths) s"
    }
}
