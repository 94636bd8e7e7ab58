/// Decoded pixels with what the source said about them.
///
///     let decoded = try PNGCodec.decode(data, options: .init())
///     print(decoded.pixels.width, decoded.sourceWidth, decoded.warnings)
public struct DecodedImage: Sendable {
    /// The decoded pixels: the header size, or smaller after a shrink-on-load decode
    /// (`DecodeOptions.minimumSize`). Stored as in the file, before any Exif rotation.
    public var pixels: PixelBuffer
    /// The size in the header; larger than `pixels` when decoded at a reduced scale.
    public var sourceWidth: Int
    /// The height in the header, in pixels; larger than `pixels.height` when decoded at a
    /// reduced scale.
    public var sourceHeight: Int
    /// The embedded ICC colour profile, uncompressed, when it describes `pixels`; `nil` when
    /// the file has none, the codec could not hand it over (a malformed profile is set aside
    /// with a warning), or the pixels were converted from CMYK (to sRGB through the file's
    /// profile or the default CMYK profile: see `notes`). `ImageInfo.iccProfile` always has the file's.
    public var iccProfile: [UInt8]?
    /// What the codec did to the colours, in its own words: how a CMYK or YCCK JPEG became RGB
    /// (through its ICC profile or the default CMYK profile, with lcms2). Not a problem;
    /// an unusable profile is in `warnings` too.
    public var notes: [String]
    /// Problems the codec recovered from (lenient mode), in its own words.
    public var warnings: [String]
    /// The warnings that say the image data itself is damaged (a scan cut short, corrupt
    /// entropy-coded data), as opposed to metadata the codec set aside (a malformed ICC
    /// profile, a misplaced ancillary chunk). The pixels of a damaged image are partly made up
    /// (grey rows, smeared blocks): callers reject it unless told to accept damaged images.
    public var damage: [String]

    /// Whether any of the warnings say the image data is damaged (`damage` is not empty).
    public var isDamaged: Bool { !damage.isEmpty }

    /// A decoded image with every field given; normally made by the codecs.
    public init(
        pixels: PixelBuffer, sourceWidth: Int, sourceHeight: Int, iccProfile: [UInt8]? = nil, warnings: [String] = [],
        damage: [String] = [], notes: [String] = []
    ) {
        self.pixels = pixels
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.iccProfile = iccProfile
        self.warnings = warnings
        self.damage = damage
        self.notes = notes
    }
}
