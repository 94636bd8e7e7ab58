import MediaTypes

/// The verdict on one file, as `pushattach verify` prints it.
///
///     let report = Verifier(options: .init()).verify(data: bytes, path: "a.webp")
///     report.verdict  // "transcode"
///
/// Encoded as JSON with exactly the keys of the `--json` output, nulls included.
public struct FileReport: Sendable, Hashable, Encodable {
    /// The file as the caller named it (`displayPath`, or the URL's path), for display only.
    public var path: String
    /// `accepted`, `transcode` or `rejected`.
    public var verdict: String
    /// What the bytes are; `.unknown` when no signature matched or the file could not be read.
    public var format: MediaFormat
    /// The format's Uniform Type Identifier, e.g. `"public.jpeg"`; `nil` when the format is
    /// `.unknown`.
    public var uti: String?
    /// The format's attachment category, which picks the byte cap; `nil` when `.unknown`.
    public var category: MediaCategory?
    /// The file's size in bytes; 0 when it could not be read.
    public var bytes: Int
    /// Width in pixels from the header, as stored (before Exif orientation); `nil` when the
    /// format does not state it here (audio, movies, HEIC) or the file was refused first.
    public var width: Int?
    /// Height in pixels from the header, as stored (before Exif orientation); `nil` as for `width`.
    public var height: Int?
    /// Frames in an image (1 for a still, more for animated GIF, APNG and WebP); `nil` when
    /// not counted for the format.
    public var frames: Int?
    /// The UNErrorCode iOS would give, when it would refuse the file.
    public var errorCode: Int?
    /// Why the file is refused or must be transcoded, and what to do; `nil` when accepted.
    public var reason: String?
    /// Notes that do not change the verdict: claims that disagreed with the bytes, a decoded
    /// size over the memory budget, codec warnings, damage accepted under `acceptDamaged`.
    public var warnings: [String]

    /// Whether iOS would attach the file as it is (`verdict == "accepted"`).
    public var isAccepted: Bool { verdict == "accepted" }

    enum CodingKeys: String, CodingKey {
        case path, verdict, format, uti, category, bytes, width, height, frames
        case errorCode = "error_code"
        case reason, warnings
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encode(verdict, forKey: .verdict)
        try c.encode(format.rawValue, forKey: .format)
        try c.encode(uti, forKey: .uti)
        try c.encode(category?.rawValue, forKey: .category)
        try c.encode(bytes, forKey: .bytes)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(frames, forKey: .frames)
        try c.encode(errorCode, forKey: .errorCode)
        try c.encode(reason, forKey: .reason)
        try c.encode(warnings, forKey: .warnings)
    }
}
