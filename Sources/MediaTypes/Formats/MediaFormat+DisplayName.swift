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
        case .jp2: "JPEG 2000"
        case .ogg: "Ogg (Vorbis or Opus)"
        case .webm: "WebM"
        case .mkv: "Matroska"
        case .unknown: "unrecognised data"
        default: rawValue.uppercased()
        }
    }
}
