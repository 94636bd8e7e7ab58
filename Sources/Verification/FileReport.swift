import MediaTypes

/// The verdict on one file, as `pushattach verify` prints it.
///
///     let report = Verifier(options: .init()).verify(data: bytes, path: "a.webp")
///     report.verdict  // "transcode"
///
/// Encoded as JSON with exactly the keys of the `--json` output, nulls included. `verdict`,
/// `action`, `output_format`, `error_code` and `refusal` are `prepare`'s half (what it will do,
/// from the same plan it carries out: `Planner.plan`); `ios` is what iOS would do with the file as
/// it is.
public struct FileReport: Sendable, Hashable, Encodable {
    /// The file as the caller named it (`displayPath`, or the URL's path), for display only.
    public var path: String
    /// What `prepare` does with the file, in one word: `accepted` (written unchanged),
    /// `transcode` (converted, fitted, re-encoded or renamed: `action` says which), `rejected`
    /// (the bytes are refused, with the `errorCode` `prepare` records) or `failed` (the file
    /// could not be read).
    public var verdict: String
    /// What `prepare` does, in one word of `Plan.Action` (`pass-through`, `rename`, `convert`,
    /// `fit`, `reencode-animation`, `first-frame`, `refuse`).
    public var action: Plan.Action = .refuse
    /// Why it is refused, as the word refusals are grouped by (`Refusal.Kind`); nil when not.
    public var refusal: Refusal.Kind?
    /// The format `prepare` writes; nil when it refuses the file.
    public var outputFormat: MediaFormat?
    /// What iOS does with the file as it is: `accepted`, or `rejected` with `iosErrorCode`.
    public var iosVerdict: String = "rejected"
    /// The UNErrorCode iOS would refuse the file with as it is; nil when it takes it.
    public var iosErrorCode: Int?
    /// What the bytes are; `.unknown` when no signature matched or the file could not be read.
    public var format: MediaFormat
    /// The format's Uniform Type Identifier, e.g. `"public.jpeg"`; `nil` when the format is
    /// `.unknown`.
    public var uti: String?
    /// The format's attachment category, which picks the byte cap; `nil` when `.unknown`.
    public var category: MediaCategory?
    /// The file's size in bytes; 0 when it could not be read.
    public var bytes: Int
    /// Width in pixels, upright (its Exif or XMP orientation applied, as `prepare`'s
    /// `source_width`); as stored in the header when the orientation could not be read; `nil`
    /// when the format does not state it here (audio, movies) or the file was refused first.
    public var width: Int?
    /// Height in pixels, upright; `nil` as for `width`.
    public var height: Int?
    /// Frames in an image (1 for a still, more for animated GIF, APNG and WebP); `nil` when
    /// not counted for the format.
    public var frames: Int?
    /// The UNErrorCode `prepare` records when it refuses the file (nil for refusals of the
    /// library's own, such as no size fitting the byte cap, and when not refused).
    public var errorCode: Int?
    /// Why the file is refused or must be transcoded, and what to do; `nil` when accepted.
    public var reason: String?
    /// Notes that do not change the verdict: claims that disagreed with the bytes, a decoded
    /// size over the decoded budget, codec warnings, damage accepted under `acceptDamaged`.
    public var warnings: [String]

    /// The plan the report renders, typed; nil for a file that could not be read.
    public var plan: Plan?

    /// Whether iOS would attach the file as it is (`verdict == "accepted"`).
    public var isAccepted: Bool { verdict == "accepted" }

    enum CodingKeys: String, CodingKey {
        case path, verdict, action
        case outputFormat = "output_format"
        case ios, format, uti, category, bytes, width, height, frames
        case errorCode = "error_code"
        case refusal, reason, warnings
    }

    enum IOSKeys: String, CodingKey {
        case verdict
        case errorCode = "error_code"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encode(verdict, forKey: .verdict)
        try c.encode(action.rawValue, forKey: .action)
        try c.encode(outputFormat?.rawValue, forKey: .outputFormat)
        var ios = c.nestedContainer(keyedBy: IOSKeys.self, forKey: .ios)
        try ios.encode(iosVerdict, forKey: .verdict)
        try ios.encode(iosErrorCode, forKey: .errorCode)
        try c.encode(format.rawValue, forKey: .format)
        try c.encode(uti, forKey: .uti)
        try c.encode(category?.rawValue, forKey: .category)
        try c.encode(bytes, forKey: .bytes)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(frames, forKey: .frames)
        try c.encode(errorCode, forKey: .errorCode)
        try c.encode(refusal?.rawValue, forKey: .refusal)
        try c.encode(reason, forKey: .reason)
        try c.encode(warnings, forKey: .warnings)
    }
}

extension FileReport {
    /// The report of a planned (and perhaps validated) file, with reasons naming settings as
    /// `names` spells them.
    public init(_ planned: MediaCheck.Planned, path: String, names: SettingNames) {
        let (facts, plan) = (planned.facts, planned.plan)
        let format = facts.format
        let upright = facts.image.map { $0.animation?.canvas ?? $0.upright }
        self.init(
            path: path, verdict: plan.action.verdict, format: format, uti: format == .unknown ? nil : format.uti,
            category: format.category, bytes: facts.byteCount, width: upright?.width ?? facts.sniffed.width,
            height: upright?.height ?? facts.sniffed.height, frames: facts.image?.animation?.frames ?? facts.sniffed.frames,
            errorCode: plan.code?.rawValue, reason: plan.reason(naming: names), warnings: planned.warnings)
        self.plan = plan
        action = plan.action
        refusal = plan.refusal?.kind
        outputFormat = plan.output
        iosVerdict = plan.asIs.verdict
        iosErrorCode = plan.asIs.code?.rawValue
    }

    /// The report of a file that could not be read: `failed`, no code (the bytes were never had).
    public init(unreadable path: String, reason: String) {
        self.init(
            path: path, verdict: "failed", format: .unknown, uti: nil, category: nil, bytes: 0, width: nil, height: nil,
            frames: nil, errorCode: nil, reason: reason, warnings: [])
        iosVerdict = "rejected"
    }
}
