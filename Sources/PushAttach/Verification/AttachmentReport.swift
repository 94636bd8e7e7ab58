import Foundation

/// Whether iOS would accept a file as a notification attachment, and if not, why.
///
///     let report = await AttachmentVerifier().verify(fileAt: URL(fileURLWithPath: "cat.webp"))
///     report.verdict           // .transcode
///     report.transcodeTarget   // .jpeg
public struct AttachmentReport: Sendable, Hashable {
    /// What iOS would do with the file.
    public enum Verdict: Sendable, Hashable {
        /// iOS accepts the file as it is.
        case accepted
        /// iOS refuses the format; `AttachmentPreparer` turns it into `transcodeTarget`.
        case transcode
        /// Refused: by iOS (`errorCode` set) or by our own checks (a pixel bomb, `errorCode` nil).
        case rejected
    }

    /// The file's path; nil for bytes verified in memory.
    public var path: String?
    /// What iOS would do with the file.
    public var verdict: Verdict
    /// The `UNErrorCode` iOS would give, when it would refuse the file.
    public var errorCode: UNErrorCode?
    /// Why the file is not accepted as it is, and what to do; nil when accepted.
    public var reason: String?
    /// What the bytes are (`.unknown` when no format matched).
    public var format: MediaFormat
    /// The format's UTI, to pass as the attachment's type hint; nil when unknown.
    public var typeHint: String?
    /// The format `AttachmentPreparer` would transcode to, when the verdict is `.transcode`.
    public var transcodeTarget: MediaFormat?
    /// The pixel size in the header (as stored); nil when not an image or unreadable.
    public var pixelSize: PixelSize?
    /// Frames, for animated images and when known.
    public var frames: Int?
    /// The file's size in bytes.
    public var byteCount: Int
    /// Things worth a look that do not change the verdict.
    public var warnings: [String]

    /// True when iOS accepts the file as it is.
    public var isAccepted: Bool { verdict == .accepted }
}
