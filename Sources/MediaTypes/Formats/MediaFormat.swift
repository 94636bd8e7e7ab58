/// What a file is, decided from its bytes.
///
///     MediaFormat.jpeg.uti            // "public.jpeg"
///     MediaFormat.webp.fileExtension  // "webp"
///
/// The raw value is the lower-case name used in JSON output and manifests.
public enum MediaFormat: String, Sendable, Hashable, CaseIterable, Codable {
    // Images
    /// JPEG (JFIF or Exif), baseline or progressive: `public.jpeg`, `.jpg`. Accepted by iOS.
    case jpeg
    /// PNG, including animated APNG: `public.png`, `.png`. Accepted by iOS.
    case png
    /// GIF, still or animated: `com.compuserve.gif`, `.gif`. Accepted by iOS.
    case gif
    /// WebP, lossy, lossless or animated: `org.webmproject.webp`. Refused by iOS; transcodable here.
    case webp
    /// HEIC, an HEIF file with an HEVC-coded image (brands `heic`, `heix`...). Not accepted by iOS.
    case heic
    /// HEIF with another codec or a generic brand (`mif1`, `msf1`). Not accepted by iOS.
    case heif
    /// AVIF, an HEIF file with an AV1-coded image (brands `avif`, `avis`). Not accepted by iOS.
    case avif
    /// Windows bitmap (`BM` header). Not accepted by iOS.
    case bmp
    /// TIFF, either byte order (`II*` or `MM*`). Not accepted by iOS.
    case tiff
    /// Windows icon or cursor. Not accepted by iOS.
    case ico
    /// SVG, recognised from its XML text. Not accepted by iOS.
    case svg
    /// PDF (`%PDF-`). Not accepted by iOS as an image attachment.
    case pdf
    /// JPEG 2000, a JP2 file (`jP  ` signature box) or a bare J2K codestream (`FF 4F FF 51`).
    /// Not accepted by iOS.
    case jp2
    // Audio
    /// MPEG-1/2 Layer III audio, with or without an ID3 tag. Accepted by iOS.
    case mp3
    /// RIFF WAVE audio. Accepted by iOS.
    case wav
    /// AIFF or AIFF-C audio. Accepted by iOS.
    case aiff
    /// MPEG-4 audio (ISO-BMFF brand `M4A `, usually AAC). Accepted by iOS.
    case m4a
    /// FLAC (`fLaC`). Not accepted by iOS in a notification.
    case flac
    /// Ogg (`OggS`): Vorbis or Opus audio, most often. Not accepted by iOS.
    case ogg
    // Movies
    /// MPEG-4 video (ISO-BMFF brands `isom`, `mp41`, `mp42`...). Accepted by iOS.
    case mp4
    /// Apple's MPEG-4 video variant (brand `M4V `). Not in iOS's accepted list.
    case m4v
    /// QuickTime movie (brand `qt  `, or classic QuickTime atoms without an `ftyp`). Not in iOS's
    /// accepted list.
    case mov
    /// AVI (RIFF `AVI `). Accepted by iOS.
    case avi
    /// MPEG-1/2 program stream (`00 00 01 BA`) or video elementary stream (`00 00 01 B3`).
    /// Accepted by iOS.
    case mpeg
    /// MPEG-2 transport stream (`0x47` sync bytes in 188-byte packets). Not accepted by iOS.
    case mpegts
    /// WebM (an EBML file whose DocType is `webm`: VP8/VP9/AV1 video). Not accepted by iOS.
    case webm
    /// Matroska (an EBML file whose DocType is `matroska`). Not accepted by iOS.
    case mkv
    /// The bytes match no signature this library knows. iOS rejects it with 101.
    case unknown
}

/// The three kinds of attachment iOS knows, each with its own size cap.
public enum MediaCategory: String, Sendable, Hashable, CaseIterable, Codable {
    /// Still or animated pictures; capped at `AppleRules.imageByteCap` (10 MB).
    case image
    /// Sound files; capped at `AppleRules.audioByteCap` (5 MB).
    case audio
    /// Video files; capped at `AppleRules.movieByteCap` (50 MB).
    case movie
}

extension MediaFormat {
    /// One row of the format table: everything we know about a format that does not depend on
    /// a particular file.
    public struct Info: Sendable, Hashable {
        /// The Uniform Type Identifier iOS knows the format by, e.g. `"public.jpeg"`.
        public let uti: String
        /// The attachment category; `nil` only for `.unknown`.
        public let category: MediaCategory?
        /// The canonical file extension, lower-case, without a dot, e.g. `"jpg"`.
        public let fileExtension: String
        /// The registered MIME type, e.g. `"image/jpeg"`.
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
        case .jp2: Info(uti: "public.jpeg-2000", category: .image, fileExtension: "jp2", mimeType: "image/jp2", otherExtensions: ["j2k", "jpf", "jpx", "j2c"])
        case .mp3: Info(uti: "public.mp3", category: .audio, fileExtension: "mp3", mimeType: "audio/mpeg", otherExtensions: ["mpga"])
        case .wav: Info(uti: "com.microsoft.waveform-audio", category: .audio, fileExtension: "wav", mimeType: "audio/wav", otherExtensions: ["wave"])
        case .aiff: Info(uti: "public.aiff-audio", category: .audio, fileExtension: "aiff", mimeType: "audio/aiff", otherExtensions: ["aif", "aifc"])
        case .m4a: Info(uti: "public.mpeg-4-audio", category: .audio, fileExtension: "m4a", mimeType: "audio/mp4", otherExtensions: ["m4b"])
        case .flac: Info(uti: "org.xiph.flac", category: .audio, fileExtension: "flac", mimeType: "audio/flac", otherExtensions: [])
        case .ogg: Info(uti: "org.xiph.ogg", category: .audio, fileExtension: "ogg", mimeType: "audio/ogg", otherExtensions: ["oga", "opus"])
        case .mp4: Info(uti: "public.mpeg-4", category: .movie, fileExtension: "mp4", mimeType: "video/mp4", otherExtensions: ["mp4v"])
        case .m4v: Info(uti: "com.apple.m4v-video", category: .movie, fileExtension: "m4v", mimeType: "video/x-m4v", otherExtensions: [])
        case .mov: Info(uti: "com.apple.quicktime-movie", category: .movie, fileExtension: "mov", mimeType: "video/quicktime", otherExtensions: ["qt"])
        case .avi: Info(uti: "public.avi", category: .movie, fileExtension: "avi", mimeType: "video/x-msvideo", otherExtensions: [])
        case .mpeg: Info(uti: "public.mpeg", category: .movie, fileExtension: "mpg", mimeType: "video/mpeg", otherExtensions: ["mpeg", "m2v", "mpe", "m1v"])
        case .mpegts: Info(uti: "public.mpeg-2-transport-stream", category: .movie, fileExtension: "ts", mimeType: "video/mp2t", otherExtensions: ["m2ts", "mts"])
        case .webm: Info(uti: "org.webmproject.webm", category: .movie, fileExtension: "webm", mimeType: "video/webm", otherExtensions: [])
        case .mkv: Info(uti: "org.matroska.mkv", category: .movie, fileExtension: "mkv", mimeType: "video/x-matroska", otherExtensions: ["mka", "mk3d"])
        case .unknown: Info(uti: "public.data", category: nil, fileExtension: "bin", mimeType: "application/octet-stream", otherExtensions: [])
        }
    }

    /// The Uniform Type Identifier iOS knows the format by, e.g. `"public.jpeg"`;
    /// `"public.data"` for `.unknown`.
    public var uti: String { info.uti }
    /// The attachment category (and so the byte cap) of the format; `nil` for `.unknown`.
    public var category: MediaCategory? { info.category }
    /// The canonical file extension, lower-case, without a dot (`"jpg"`, `"mpg"`, `"bin"` for
    /// `.unknown`); the name `prepare` gives its output files.
    public var fileExtension: String { info.fileExtension }
    /// The registered MIME type, e.g. `"image/jpeg"`; `"application/octet-stream"` for `.unknown`.
    public var mimeType: String { info.mimeType }

    /// Every extension, canonical first, that names this format.
    public var allExtensions: [String] { [info.fileExtension] + info.otherExtensions }
}
