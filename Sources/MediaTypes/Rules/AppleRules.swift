/// Apple's attachment rules as data, in one place (see docs/attachment-rules.md).
///
///     let assessment = AppleRules.standard.assess(sniffed, byteCount: 2_270_597, fileExtension: "jpg")
///     assessment.verdict     // .accepted
///     assessment.warnings    // ["decoded size 5760x3840 ... over the NSE decoded-memory budget ..."]
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

    /// The per-image decoded budget, under its old name.
    @available(*, deprecated, renamed: "decodedBudget")
    public var memoryBudget: Int {
        get { decodedBudget }
        set { decodedBudget = newValue }
    }

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

    /// WebP, HEIC, HEIF and AVIF become JPEG, or PNG when they have alpha; `nil` for every
    /// format we cannot convert.
    public func transcodeTarget(for format: MediaFormat, hasAlpha: Bool) -> MediaFormat? {
        guard Self.transcodableFormats.contains(format) else { return nil }
        return hasAlpha ? .png : .jpeg
    }

    /// The verdict iOS would give, with warnings.
    ///
    /// - Parameters:
    ///   - byteCount: the file's size.
    ///   - fileExtension: the extension of the file's name, with or without the dot; `nil` when
    ///     there is no name to check (iOS goes by the extension, so a disagreeing or missing one
    ///     is rejected 101).
    public func assess(_ sniffed: SniffedType, byteCount: Int, fileExtension: String?) -> Assessment {
        let format = sniffed.format
        var warnings = memoryWarnings(sniffed)
        guard let category = format.category, format != .unknown else {
            return Assessment(
                verdict: .rejected(
                    .unrecognizedType, reason: "the bytes are not a media format iOS knows; send \(Self.acceptedList)"),
                warnings: warnings)
        }
        if !isAccepted(format) {
            if let target = transcodeTarget(for: format, hasAlpha: sniffed.hasAlpha ?? false) {
                if sniffed.isAnimated {
                    warnings.append(
                        "animated \(format.displayName) (\(sniffed.frames.map { "\($0) frames" } ?? "an image sequence")): only the first frame survives transcoding to \(target.displayName)"
                    )
                }
                let reason =
                    "\(format.displayName) is not accepted by iOS; prepare will transcode it to \(target.displayName)"
                return Assessment(verdict: .transcode(to: target), reason: reason, warnings: warnings)
            }
            return Assessment(
                verdict: .rejected(.unrecognizedType, reason: Self.notAcceptedReason(sniffed)), warnings: warnings)
        }
        let cap = byteCap(for: category)
        if byteCount > cap {
            let reason =
                "\(byteCount) bytes is over iOS's \(cap / 1_000_000) MB (\(cap)-byte) limit for \(category.rawValue) attachments; make the file smaller"
            return Assessment(verdict: .rejected(.invalidFileSize, reason: reason), warnings: warnings)
        }
        if let fileExtension {
            var ext = fileExtension.trimmingWhitespace.lowercased()
            if ext.hasPrefix(".") { ext.removeFirst() }
            if ext.isEmpty {
                let reason =
                    "the file has no extension and iOS decides the type by extension; rename it to .\(format.fileExtension)"
                return Assessment(verdict: .rejected(.unrecognizedType, reason: reason), warnings: warnings)
            }
            if !format.allExtensions.contains(ext) {
                let reason =
                    "the file is named .\(ext) but its bytes are \(format.displayName), and iOS goes by the extension; rename it to .\(format.fileExtension)"
                return Assessment(verdict: .rejected(.unrecognizedType, reason: reason), warnings: warnings)
            }
        }
        return Assessment(verdict: .accepted, warnings: warnings + Self.codecWarnings(sniffed))
    }

    /// Rejected 105 for a file whose header could not be trusted.
    ///
    ///     AppleRules.standard.assess(failure: error).verdict  // .rejected(.corrupt, ...)
    public func assess(failure: SniffError) -> Assessment {
        Assessment(verdict: .rejected(.corrupt, reason: failure.description))
    }

    private func memoryWarnings(_ sniffed: SniffedType) -> [String] {
        guard sniffed.format.category == .image, let decoded = sniffed.decodedByteCount, decoded > decodedBudget,
            let w = sniffed.width, let h = sniffed.height
        else { return [] }
        return [
            "decoded size \(w)x\(h)x4 = \(Self.megabytes(decoded)) MB is over the NSE decoded-memory budget of \(Self.megabytes(decodedBudget)) MB; downscale it (prepare does)"
        ]
    }

    static func megabytes(_ bytes: Int) -> String {
        let tenths = bytes / 100_000
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }

    /// The accepted formats as one English phrase for messages, e.g. "JPEG, PNG or GIF images,
    /// MP3, M4A, WAV or AIFF audio, or MP4, MPEG or AVI movies".
    public static let acceptedList = "JPEG, PNG or GIF images, MP3, M4A, WAV or AIFF audio, or MP4, MPEG or AVI movies"

    static func notAcceptedReason(_ sniffed: SniffedType) -> String {
        let format = sniffed.format
        let refused = "is not accepted by iOS as a notification attachment, and it cannot be converted here"
        guard format == .mov, sniffed.tracks.contains(where: { $0.kind != .other }) else {
            return "\(format.displayName) \(refused); convert it to \(suggestion(for: format)) before sending"
        }
        // A QuickTime movie: whether its tracks can move into MP4 as they are decides the advice.
        let described = "\(format.displayName) (\(MovieTrack.describe(sniffed.tracks)))"
        if sniffed.tracks.allSatisfy({ $0.fitsInMP4 && $0.playsOnIOS }) {
            return
                "\(described) \(refused); its tracks fit in MP4 as they are: remux it (ffmpeg -i in.mov -c copy -movflags +faststart out.mp4) before sending"
        }
        return "\(described) \(refused); convert it to MP4 (H.264 video, AAC audio) before sending"
    }

    /// For a movie or sound iOS takes by type: a warning per track whose codec iOS does not
    /// reliably play, with what to re-encode it to.
    static func codecWarnings(_ sniffed: SniffedType) -> [String] {
        sniffed.tracks.filter { !$0.playsOnIOS }.map { track in
            let target = track.kind == .video ? "H.264 (or HEVC)" : "AAC"
            return
                "the \(track.kind.rawValue) track is \(track.codecName) (\(track.code)), which iOS does not reliably play in a notification; re-encode it to \(target)"
        }
    }

    private static func suggestion(for format: MediaFormat) -> String {
        switch format.category {
        case .image: "JPEG or PNG"
        case .audio: "M4A or MP3"
        case .movie: "MP4 (H.264)"
        case nil: acceptedList
        }
    }
}
