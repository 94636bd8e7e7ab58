/// What the bytes of a file are, with the facts its header states.
///
///     let sniffed = try Sniffer.sniff(bytes)
///     sniffed.format      // .png
///     sniffed.width       // 100
///     sniffed.frames      // 20 (APNG)
///     sniffed.detail      // "APNG"
///
/// Header facts are `nil` where the format has no such fact or where this sniffer does not read it
/// (for example the dimensions of TIFF and movies).
public struct SniffedType: Sendable, Hashable {
    /// The format the bytes are, from their signature; `.unknown` when nothing matched.
    public var format: MediaFormat
    /// Image width in pixels, from the header.
    public var width: Int?
    /// Image height in pixels, from the header.
    public var height: Int?
    /// Frame count for images: GIF image descriptors, APNG `acTL` num_frames, WebP `ANMF` chunks;
    /// 1 for a still image; `nil` for formats that are not frame-counted here.
    public var frames: Int?
    /// Whether the header declares transparency (PNG colour type or `tRNS`, GIF transparency flag,
    /// WebP VP8X/VP8L alpha flag, a HEIF/AVIF alpha `auxC` property); `nil` when the format does
    /// not say.
    public var hasAlpha: Bool?
    /// Whether the header declares more than one frame to play (animated GIF, APNG, animated
    /// WebP); `false` for stills and for formats that are not frame-counted.
    public var isAnimated: Bool
    /// A short note about the variant, for people: an ISO-BMFF brand, "progressive", "CMYK",
    /// "APNG", "VP8L"...
    public var detail: String?
    /// A progressive JPEG or an interlaced (Adam7) PNG: decoded in passes, so its decoder holds a
    /// whole frame of its own.
    public var isProgressive = false
    /// For an MP4, M4A or QuickTime file whose `moov` box was within the bytes sniffed: each
    /// track's kind and codec (`MovieTracks`); empty otherwise.
    public var tracks: [MovieTrack] = []

    /// A sniff result with the facts given; unknown facts stay `nil`. Normally made by
    /// `Sniffer.sniff(_:)`.
    public init(
        format: MediaFormat, width: Int? = nil, height: Int? = nil, frames: Int? = nil,
        hasAlpha: Bool? = nil, isAnimated: Bool = false, detail: String? = nil
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.frames = frames
        self.hasAlpha = hasAlpha
        self.isAnimated = isAnimated
        self.detail = detail
    }

    /// The format's Uniform Type Identifier, e.g. `"public.png"`; see ``MediaFormat/uti``.
    public var uti: String { format.uti }
    /// The format's attachment category; `nil` when the format is `.unknown`.
    public var category: MediaCategory? { format.category }
    /// The format's canonical extension without a dot, e.g. `"png"`.
    public var fileExtension: String { format.fileExtension }

    /// Decoded size in bytes at 4 bytes a pixel, when the dimensions are known.
    public var decodedByteCount: Int? {
        guard let width, let height else { return nil }
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow else { return Int.max }
        let (bytes, overflow2) = product.multipliedReportingOverflow(by: 4)
        return overflow2 ? Int.max : bytes
    }
}
