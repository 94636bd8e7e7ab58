/// What a file is, decided from its bytes.
///
///     MediaFormat.jpeg.uti            // "public.jpeg"
///     MediaFormat.webp.fileExtension  // "webp"
///
/// The raw value is the lower-case name used in JSON output and manifests.
public enum MediaFormat: String, Sendable, Hashable, CaseIterable, Codable {
    // Images
    case jpeg, png, gif, webp, heic, heif, avif, bmp, tiff, ico, svg, pdf
    // Audio
    case mp3, wav, aiff, m4a
    // Movies
    case mp4, m4v, mov, avi, mpeg, mpegts
    case unknown
}

/// The three kinds of attachment iOS knows, each with its own size cap.
public enum MediaCategory: String, Sendable, Hashable, CaseIterable, Codable {
    case image, audio, movie
}

extension MediaFormat {
    /// One row of the format table: everything we know about a format that does not depend on
    /// a particular file.
    public struct Info: Sendable, Hashable {
        public let uti: String
        public let category: MediaCategory?
        public let fileExtension: String
        public let mimeType: String
        /// Other extensions seen in the wild for this format, lower-case, without a dot.
        public let otherExtensions: [String]
    }

    /// The format table. Apple's acceptance rules live in `AppleRules`; this only names things.
    public var info: Info {
        switch self {
        case .jpeg: Info(uti: "public.jpeg", category: .image, fileExtension: "jpg", mimeType: "image/jpeg", otherExtensions: ["jpeg", "jpe", "jfif", "pjpeg"])
        case .png: Info(uti: "public.png", category: .image, fileExtension: "png", mimeType: "image/png", otherExtensions: ["apng"])
        case .gif: Info(uti: "com.compuserve.gif", category: .image, fileExtension: "gif", mimeType: "image/gif", otherExtensions: [])
        case .webp: Info(uti: "org.webmproject.webp", category: .image, fileExtension: "webp", mimeType: "image/webp", otherExtensions: [])
        case .heic: Info(uti: "public.heic", category: .image, fileExtension: "heic", mimeType: "image/heic", otherExtensions: ["heics"])
        case .heif: Info(uti: "public.heif", category: .image, fileExtension: "heif", mimeType: "image/heif", otherExtensions: ["hif"])
        case .avif: Info(uti: "public.avif", category: .image, fileExtension: "avif", mimeType: "image/avif", otherExtensions: ["avifs"])
        case .bmp: Info(uti: "com.microsoft.bmp", category: .image, fileExtension: "bmp", mimeType: "image/bmp", otherExtensions: ["dib"])
        case .tiff: Info(uti: "public.tiff", category: .image, fileExtension: "tiff", mimeType: "image/tiff", otherExtensions: ["tif"])
        case .ico: Info(uti: "com.microsoft.ico", category: .image, fileExtension: "ico", mimeType: "image/vnd.microsoft.icon", otherExtensions: ["cur"])
        case .svg: Info(uti: "public.svg-image", category: .image, fileExtension: "svg", mimeType: "image/svg+xml", otherExtensions: ["svgz"])
        case .pdf: Info(uti: "com.adobe.pdf", category: .image, fileExtension: "pdf", mimeType: "application/pdf", otherExtensions: [])
        case .mp3: Info(uti: "public.mp3", category: .audio, fileExtension: "mp3", mimeType: "audio/mpeg", otherExtensions: ["mpga"])
        case .wav: Info(uti: "com.microsoft.waveform-audio", category: .audio, fileExtension: "wav", mimeType: "audio/wav", otherExtensions: ["wave"])
        case .aiff: Info(uti: "public.aiff-audio", category: .audio, fileExtension: "aiff", mimeType: "audio/aiff", otherExtensions: ["aif", "aifc"])
        case .m4a: Info(uti: "public.mpeg-4-audio", category: .audio, fileExtension: "m4a", mimeType: "audio/mp4", otherExtensions: ["m4b"])
        case .mp4: Info(uti: "public.mpeg-4", category: .movie, fileExtension: "mp4", mimeType: "video/mp4", otherExtensions: ["mp4v"])
        case .m4v: Info(uti: "com.apple.m4v-video", category: .movie, fileExtension: "m4v", mimeType: "video/x-m4v", otherExtensions: [])
        case .mov: Info(uti: "com.apple.quicktime-movie", category: .movie, fileExtension: "mov", mimeType: "video/quicktime", otherExtensions: ["qt"])
        case .avi: Info(uti: "public.avi", category: .movie, fileExtension: "avi", mimeType: "video/x-msvideo", otherExtensions: [])
        case .mpeg: Info(uti: "public.mpeg", category: .movie, fileExtension: "mpg", mimeType: "video/mpeg", otherExtensions: ["mpeg", "m2v", "mpe", "m1v"])
        case .mpegts: Info(uti: "public.mpeg-2-transport-stream", category: .movie, fileExtension: "ts", mimeType: "video/mp2t", otherExtensions: ["m2ts", "mts"])
        case .unknown: Info(uti: "public.data", category: nil, fileExtension: "bin", mimeType: "application/octet-stream", otherExtensions: [])
        }
    }

    public var uti: String { info.uti }
    public var category: MediaCategory? { info.category }
    public var fileExtension: String { info.fileExtension }
    public var mimeType: String { info.mimeType }

    /// Every extension, canonical first, that names this format.
    public var allExtensions: [String] { [info.fileExtension] + info.otherExtensions }
}
