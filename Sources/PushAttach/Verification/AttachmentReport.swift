import Foundation
import MediaTypes
import SystemSupport
import Verification

/// What `AttachmentPreparer` will do with a file, and what iOS would do with it as it is: one
/// plan, the one the preparer runs.
///
///     let report = await AttachmentVerifier().verify(fileAt: URL(fileURLWithPath: "cat.webp"))
///     report.verdict           // .transcode
///     report.action            // .convert
///     report.transcodeTarget   // .jpeg
///     report.iosErrorCode      // .unrecognizedType: iOS refuses WebP as it is
///
/// Encoded (`JSONEncoder`), it is one object of `pushattach verify --json`, keys as
/// `docs/pushattach.1` lists them: `path`, `verdict`, `action`, `output_format`, `ios`
/// (`verdict`, `error_code`), `format`, `uti`, `category`, `bytes`, `width`, `height`, `frames`,
/// `error_code`, `refusal`, `reason`, `warnings`.
public struct AttachmentReport: Sendable, Hashable, Encodable {
    /// What the preparer does with the file, in three words.
    public enum Verdict: String, Sendable, Hashable {
        /// Written unchanged: iOS takes it as it is.
        case accepted
        /// Converted, fitted, re-encoded or renamed (`action` says which) into `transcodeTarget`.
        case transcode
        /// Refused, with the `errorCode` the preparer records (nil for refusals of its own).
        case rejected
        /// The file could not be read.
        case failed
    }

    /// What the preparer does, one word more precise than `verdict`: `passThrough`, `rename`
    /// (byte for byte, under its real type's extension), `convert` (WebP, HEIC, AVIF to JPEG or
    /// PNG), `fit` (re-encoded to the limits), `reencodeAnimation`, `firstFrame`, `refuse`.
    public typealias Action = MediaTypes.Plan.Action

    /// The file's path; nil for bytes verified in memory.
    public var path: String?
    /// What the preparer does with the file.
    public var verdict: Verdict
    /// What the preparer does, precisely.
    public var action: Action
    /// The code iOS would refuse the file with as it is (a WebP: 101; a 12 MB JPEG: 102); nil
    /// when iOS would take it unchanged.
    public var iosErrorCode: UNErrorCode?
    /// The `UNErrorCode` the preparer records when it refuses the file.
    public var errorCode: UNErrorCode?
    /// Why the preparer refuses the file, as data; nil when it does not.
    public var refusal: Refusal?
    /// The plan the report renders, whole: the size the file is fitted to, what may still
    /// change, why; nil for a file that could not be read.
    public var plan: Plan?
    /// Why the file is not accepted as it is, and what to do; nil when accepted.
    public var reason: String?
    /// What the bytes are (`.unknown` when no format matched).
    public var format: MediaFormat
    /// The format's UTI, to pass as the attachment's type hint; nil when unknown.
    public var typeHint: String?
    /// Image, audio or movie; nil when the bytes are none of them.
    public var category: MediaCategory?
    /// The format `AttachmentPreparer` writes, when the verdict is `.transcode`.
    public var transcodeTarget: MediaFormat?
    /// The pixel size, upright (Exif orientation applied); nil when not an image or unreadable.
    public var pixelSize: PixelSize?
    /// Frames, for animated images and when known.
    public var frames: Int?
    /// The file's size in bytes.
    public var byteCount: Int
    /// Things worth a look that do not change the verdict.
    public var warnings: [String]

    /// True when the file is written unchanged (iOS accepts it as it is, under its name).
    public var isAccepted: Bool { verdict == .accepted }

    /// The verifier's own report, which `encode(to:)` writes (with this value's `path`, `reason`
    /// and `warnings`, so a caller that rewrote them prints its own words).
    let recorded: FileReport

    /// Writes the keys `verify --json` prints, in its words (`verdict` "accepted", "transcode",
    /// "rejected"; codes as numbers).
    public func encode(to encoder: any Encoder) throws {
        var report = recorded
        report.path = path ?? ""
        report.reason = reason
        report.warnings = warnings
        try report.encode(to: encoder)
    }
}
