/// Apple's attachment rules as data, in one place (see docs/attachment-rules.md): the formats iOS
/// takes, the byte cap of each kind, the decoded budget of an extension. `Planner.plan` applies
/// them; nothing else decides by them.
///
///     AppleRules.standard.byteCap(for: .audio)   // 5_000_000
///     AppleRules.standard.isAccepted(.webp)      // false
///
/// Sizes are in 10^6-byte MB, the safe reading of Apple's "10 MB".
public struct AppleRules: Sendable, Hashable {
    /// Largest image file iOS attaches, in bytes (10^6-byte MB): 10 MB.
    public var imageByteCap = 10_000_000
    /// Largest audio file iOS attaches, in bytes: 5 MB.
    public var audioByteCap = 5_000_000
    /// Largest movie file iOS attaches, in bytes: 50 MB.
    public var movieByteCap = 50_000_000
    /// Decoded bytes (width x height x 4) of one image a Notification Service Extension can
    /// comfortably hold: the per-image budget (the run's admission budget is
    /// `AttachmentPreparer.Configuration.admissionBudget`).
    public var decodedBudget = 24_000_000

    /// The rules as Apple documents them; the same as `AppleRules()`.
    public static let standard = AppleRules()

    /// The documented caps and budget; change the stored properties to tighten them.
    public init() {}

    /// The formats UNNotificationAttachment accepts, with the UTI iOS knows each by. `mpeg`
    /// covers both public.mpeg (.mpg) and public.mpeg-2-video (.m2v).
    public static let acceptedFormats: Set<MediaFormat> = [
        .jpeg, .gif, .png, .aiff, .wav, .mp3, .m4a, .mpeg, .mp4, .avi,
    ]

    /// Formats iOS refuses that we can decode and re-encode: WebP (libwebp), and HEIC, HEIF and
    /// AVIF (libheif).
    public static let transcodableFormats: Set<MediaFormat> = [.webp, .heic, .heif, .avif]

    /// The file-size cap in bytes for `category`, e.g. `10_000_000` for `.image`.
    public func byteCap(for category: MediaCategory) -> Int {
        switch category {
        case .image: imageByteCap
        case .audio: audioByteCap
        case .movie: movieByteCap
        }
    }

    /// Whether iOS attaches files of `format` as they are (size caps aside); see
    /// ``acceptedFormats``.
    public func isAccepted(_ format: MediaFormat) -> Bool { Self.acceptedFormats.contains(format) }

    /// The accepted formats as one English phrase for messages, e.g. "JPEG, PNG or GIF images,
    /// MP3, M4A, WAV or AIFF audio, or MP4, MPEG or AVI movies".
    public static let acceptedList = "JPEG, PNG or GIF images, MP3, M4A, WAV or AIFF audio, or MP4, MPEG or AVI movies"
}
