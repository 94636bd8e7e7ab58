import MediaTypes
import PushPayloads

/// Why a load gave no file: a case per cause, with what it needs to say so.
/// `LoadedAttachment.reason` is its `description`.
///
///     switch loaded.refusal {
///     case .timedOut?: content.body += " (image still loading)"
///     case .notMedia(let looksLike, _)?: log("the media URL gave \(looksLike)")
///     default: break
///     }
///
/// The first cases are about the payload and the download; the last four about the bytes,
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
    /// The body is over iOS's byte cap for its kind (`category`; nil when its first bytes had not
    /// arrived). `byteCount` is its size, declared or counted; nil when the download was stopped
    /// at the cap.
    case tooLarge(category: MediaCategory?, byteCount: Int?, cap: Int)
    /// The bytes are no media: `looksLike` says what they look like ("an HTML page", "JSON",
    /// "text"), `start` shows their first bytes.
    case notMedia(looksLike: String, start: String)
    /// Media of a format iOS does not attach. `convertible`: `pushattach serve` or `prepare`
    /// converts it (WebP, HEIC, HEIF and AVIF to JPEG or PNG).
    case notAttachable(format: MediaFormat, convertible: Bool)
    /// Media of a known format whose header is damaged.
    case damaged(format: MediaFormat, detail: String)

    /// The `UNErrorCode` iOS would refuse such a file with (101 type, 102 size, 105 damaged); nil
    /// when the refusal is about the payload or the download.
    public var errorCode: Int? {
        switch self {
        case .notMedia, .notAttachable: UNErrorCode.unrecognizedType.rawValue
        case .tooLarge: UNErrorCode.invalidFileSize.rawValue
        case .damaged: UNErrorCode.corrupt.rawValue
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
        case .tooLarge(let category, let byteCount, let cap):
            "\(byteCount.map(Self.megabytes) ?? "more than \(Self.megabytes(cap))"), over iOS's \(Self.megabytes(cap)) cap for \(category.map { "\($0.rawValue)s" } ?? "attachments")"
                + (category == .image ? "; pushattach serve or prepare fits images to it" : "")
        case .notMedia(let looksLike, let start):
            "not media: the bytes are \(looksLike) (\"\(start)…\"), not a file iOS can attach; the URL must give the media itself"
        case .notAttachable(let format, true):
            "\(format.displayName) is not a type iOS attaches; pushattach serve or prepare converts it to JPEG or PNG"
        case .notAttachable(let format, false):
            "\(format.displayName) is not a type iOS attaches; send \(AppleRules.acceptedList)"
        case .damaged(_, let detail):
            "damaged: \(detail)"
        }
    }

    /// The conventions' keys a push can carry (not `url`, which in a push is the link opened on tap).
    static let pushKeys = PayloadConventions.all.filter { $0.name != nil }.map(\.key).joined(separator: ", ")

    /// "10 MB", "19.8 MB": 10^6-byte megabytes, as Apple's caps are read.
    static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes + 50_000) / 100_000
        return tenths % 10 == 0 ? "\(tenths / 10) MB" : "\(tenths / 10).\(tenths % 10) MB"
    }

    private static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        let tenths = Int(fraction / 100_000_000_000_000_000)
        return tenths == 0 ? "\(whole) s" : "\(whole).\(tenths) s"
    }
}
