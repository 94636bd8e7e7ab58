extension MediaFormat {
    /// The name a person knows the format by, for messages.
    ///
    ///     MediaFormat.webp.displayName  // "WebP"
    public var displayName: String {
        switch self {
        case .webp: "WebP"
        case .mov: "QuickTime movie"
        case .mpeg: "MPEG video"
        case .mpegts: "MPEG-TS"
        case .unknown: "unrecognised data"
        default: rawValue.uppercased()
        }
    }
}
