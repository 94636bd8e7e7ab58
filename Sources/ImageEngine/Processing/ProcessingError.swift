import ImageCodecs
import MediaTypes

/// Why an image could not be processed. The pipeline turns each into a per-item result.
///
///     do { _ = try processor.process(data, sniffed: sniffed, limits: limits) }
///     catch .notDecodable { /* GIF, audio, video: verify and pass through */ }
public enum ProcessingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not an image this engine decodes (GIF, HEIC, audio, video...): the caller passes it
    /// through after verifying it, or rejects it.
    case notDecodable(MediaFormat)
    /// The codec refused the bytes: damaged, an unsupported variant, a strict-mode warning, or
    /// a header over the pixel budget (`.pixelBudgetExceeded`, thrown before any decode).
    case codec(CodecError)
    /// The Exif block is malformed and `strict` is on (lenient mode treats the image as upright).
    case exif(ExifError)
    /// The image data is damaged (cut short, corrupt entropy-coded data): the codec recovered,
    /// but part of the picture is made up. Set `ProcessingLimits.acceptDamaged` to take it anyway.
    case damaged(MediaFormat, detail: String)
    /// Even the smallest size tried was over the byte cap.
    case cannotFit(byteCap: Int, smallest: Int)
    /// A limit that cannot be met by any image (zero or negative sizes, caps or qualities).
    case invalidLimits(String)
    /// The plan refuses the image (`process(_:sniffed:limits:)`, which plans before it runs).
    case refused(Refusal)

    /// One line for people, naming settings as the library spells them.
    public var description: String { description(naming: .library) }

    /// The setting that would take the image anyway: accepting damaged images.
    public var setting: Setting? {
        if case .damaged = self { return .acceptDamaged }
        return nil
    }

    /// One line for people, with the setting that would take the image spelled by `names`.
    public func description(naming names: SettingNames) -> String {
        switch self {
        case .notDecodable(let format):
            "\(format.displayName) is not decoded by the image engine (JPEG, PNG, WebP, HEIC and AVIF are); pass it through if iOS accepts it, or convert it before sending"
        case .codec(let error):
            error.description
        case .exif(let error):
            "\(error) (strict mode; process leniently to treat the image as upright)"
        case .damaged(let format, let detail):
            "the \(format.displayName) image data is damaged (\(detail)); send a complete file, or use what decodes with \(names[.acceptDamaged])"
        case .cannotFit(let byteCap, let smallest):
            "the smallest encoding tried is \(smallest) bytes, still over the \(byteCap)-byte cap; raise the cap or serve a simpler image"
        case .invalidLimits(let reason):
            "invalid processing limits: \(reason)"
        case .refused(let refusal):
            refusal.description(naming: names)
        }
    }

    /// What the engine found in the bytes, as the planner reads it (`Planner.refusal(for:…)`);
    /// nil for what is not about the bytes (limits no image can meet, a format the engine does
    /// not take, a refusal the plan made already).
    public var problem: DecodeProblem? {
        switch self {
        case .damaged(_, let detail): .damagedData(detail: detail)
        case .codec(.pixelBudgetExceeded(let width, let height, _)): .pixelBudgetExceeded(width: width, height: height)
        case .codec(.unsupported(let codec, let message)): .unsupported(codec: codec, detail: message)
        case .codec(let error): .corrupt(detail: error.description)
        case .exif(let error): .malformedExif(detail: "\(error)")
        case .cannotFit(let cap, let smallest): .cannotFit(cap: cap, smallest: smallest)
        case .notDecodable, .invalidLimits, .refused: nil
        }
    }
}

extension ProcessingError {
    /// The payload of `.codec`, by a name reachable where the codec module's is not (the
    /// `PushAttach` library re-exports it as `CodecError`).
    public typealias Codec = CodecError
}
