import Fetch
import ImageCodecs
import ImageEngine
// The names a user of `PushAttach` needs, from the modules underneath, so `import PushAttach`
// is the only import (with `PushAttachBatch` for batches), each by alias: media formats and categories, Apple's rules, the
// UNErrorCode values, the display escaping, the fetch policy, the engine's limits, the pixel
// size and the underlying errors of `AttachmentError`. Nothing else of the modules underneath
// is public to a user of `PushAttach` (no sniffer, no JPEG segment reader, no `Verdict` to
// shadow the report's), and the command line is such a user: it reaches no `package`
// declaration (`Scripts/public-api-check` type-checks it outside the package to prove it).
import MediaTypes
import SystemSupport

/// A media format, from the bytes: JPEG, PNG, GIF, WebP, HEIC, AVIF, MP3, MP4, … (`.unknown`).
///
///     attachment.format == .jpeg
///     MediaFormat.webp.uti   // "org.webmproject.webp"
public typealias MediaFormat = MediaTypes.MediaFormat

/// Image, audio or movie: the three kinds of attachment, each with its own cap.
public typealias MediaCategory = MediaTypes.MediaCategory

/// The error codes of `UNNotificationAttachment`, as iOS gives them (101 unrecognized type, 102
/// invalid file size, 105 …).
public typealias UNErrorCode = MediaTypes.UNErrorCode

/// Apple's rules for attachments: the formats iOS shows, the byte cap of each kind, and the
/// decoded-image budget of a Notification Service Extension.
///
///     var rules = AppleRules.standard
///     rules.decodedBudget = 16_000_000
public typealias AppleRules = MediaTypes.AppleRules

/// How every file is judged, in one value: Apple's rules, the pixel budget, strictness, damaged
/// images, and how messages name settings. `AttachmentPreparer.Configuration.policy` and
/// `AttachmentVerifier(policy:)` take the same value, so preparing and verifying agree.
public typealias AttachmentPolicy = MediaTypes.AttachmentPolicy

/// Text from outside made safe to show a person: control, bidi and invisible characters as
/// visible escapes.
///
///     DisplayText.escaped("cat\u{1B}[2J.jpg")   // #"cat\u{1B}[2J.jpg"#
public typealias DisplayText = MediaTypes.DisplayText

/// A setting a message tells its reader to change (the allowed hosts, private networks, the
/// spool budget, resuming, the pixel budget, …): messages carry it, whoever shows them names it.
///
///     error.underlying   // .fetch(.hostNotAllowed(…)), whose `setting` is .allowedHosts
public typealias Setting = MediaTypes.Setting

/// How messages spell each `Setting`: the library's API names (`.library`) or a face's own
/// (`AttachmentPolicy.settingNames`, in `Configuration.policy` and `AttachmentVerifier.policy`).
///
///     configuration.policy.settingNames = SettingNames([.allowedHosts: "--allow-host"])
public typealias SettingNames = MediaTypes.SettingNames

/// How downloads are made: redirects, private networks (the address guard), allowed hosts,
/// deadlines, retries, the spool threshold. `AttachmentPreparer.Configuration.fetch`.
///
///     var configuration = AttachmentPreparer.Configuration.default
///     configuration.fetch.allowedHosts = ["cdn.example.com"]
public typealias FetchPolicy = Fetch.FetchPolicy

/// The image engine's limits: byte cap, long side, JPEG quality, pixel budget.
/// `AttachmentPreparer.Configuration.limits`.
///
///     var configuration = AttachmentPreparer.Configuration.default
///     configuration.limits.maxLongSide = 1024
public typealias ProcessingLimits = ImageEngine.ProcessingLimits

/// A size in pixels, upright (orientation applied).
///
///     let size = PixelSize(width: 256, height: 171)
///     size.width   // 256
public typealias PixelSize = MediaTypes.Size

/// Why a download failed (`AttachmentError.Underlying.fetch`): every case names the URL.
///
///     if case .fetch(.httpStatus(_, let status, _)) = error.underlying { print(status) }   // 404
public typealias FetchError = Fetch.FetchError

/// Why the folder could not be opened or written (`AttachmentError.Underlying.container`).
///
///     if case .container(let cause) = error.underlying { print(cause.isFatal) }
public typealias ContainerError = SystemSupport.ContainerError

/// Why the image engine failed (`AttachmentError.Underlying.processing`).
///
///     if case .processing(.cannotFit(let cap, _)) = error.underlying { print(cap) }
public typealias ProcessingError = ImageEngine.ProcessingError

/// A codec's error, the payload of `ProcessingError.codec`: what libjpeg-turbo, libpng,
/// libwebp, libheif or giflib refused, or the pixel budget.
public typealias CodecError = ProcessingError.Codec

/// Why a body could not be spooled to disk, the payload of `FetchError.spoolFailed`.
public typealias SpoolFailure = Fetch.SpoolFailure

/// Why a file is refused, as data, made only by the planner: `AttachmentError.refusal`,
/// `AttachmentReport.refusal`, `AttachmentEvent.refusal`. Its `code` is the UNErrorCode iOS would
/// give, its `kind` the word refusals are grouped by, `description(naming:)` the reason.
///
///     if case .notMedia(let looksLike)? = error.refusal { print(looksLike) }   // .html
public typealias Refusal = MediaTypes.Refusal

/// What bytes that are no media look like: an HTML page, text, JSON, a PDF, an empty file.
///
///     ContentGuess.html.phrase   // "an HTML page"
public typealias ContentGuess = MediaTypes.ContentGuess

/// Whether a file is media to judge, from its first bytes and its name: the rule folders,
/// INPUT arguments and paths on standard input are read by.
public typealias FileKind = MediaTypes.FileKind

/// What becomes of a file: the action, the format written, the size it is fitted to, what the
/// engine may still change, a refusal, and what iOS does with the file as it is.
/// `AttachmentReport.plan`.
public typealias Plan = MediaTypes.Plan

/// Byte counts as every face writes them: "19.8 MB", "512 kB".
public typealias ByteSize = MediaTypes.ByteSize
