import MediaTypes

/// The verdict on one file, as `pushattach verify` prints it.
///
///     let report = Verifier(options: .init()).verify(data: bytes, path: "a.webp")
///     report.verdict  // "transcode"
///
/// Encoded as JSON with exactly the keys of the `--json` output, nulls included.
public struct FileReport: Sendable, Hashable, Encodable {
    public var path: String
    /// `accepted`, `transcode` or `rejected`.
    public var verdict: String
    public var format: MediaFormat
    public var uti: String?
    public var category: MediaCategory?
    public var bytes: Int
    public var width: Int?
    public var height: Int?
    public var frames: Int?
    /// The UNErrorCode iOS would give, when it would refuse the file.
    public var errorCode: Int?
    public var reason: String?
    public var warnings: [String]

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
