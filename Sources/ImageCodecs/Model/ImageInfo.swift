/// What a header says about an image, read without decoding pixels.
///
///     let info = try JPEGCodec.readInfo(data)
///     print(info.width, info.height, info.subsampling ?? "-")
public struct ImageInfo: Sendable, Hashable {
    /// Width in pixels as stored in the header (the canvas width for animated WebP), before
    /// any Exif rotation; for HEIC/HEIF/AVIF the displayed width, after the `clap`/`irot`
    /// transforms libheif applies when it decodes.
    public var width: Int
    /// Height in pixels as stored in the header, before any Exif rotation.
    public var height: Int
    /// Whether the image can carry transparency: PNG with an alpha colour type or `tRNS`, WebP
    /// with the alpha flag; always `false` for JPEG.
    public var hasAlpha: Bool
    /// Frames in an animation; 1 for still images.
    public var frames: Int
    /// JPEG colour space: "ycbcr", "gray", "cmyk", "ycck" or "rgb"; nil for other formats.
    public var colorSpace: String?
    /// JPEG chroma subsampling: "4:4:4", "4:2:2", "4:2:0", "gray", "4:4:0", "4:1:1"; nil otherwise.
    public var subsampling: String?
    /// JPEG only: progressive (SOF2/SOF6/SOF10/SOF14); nil for other formats.
    public var isProgressive: Bool?
    /// The embedded ICC profile, when the codec can hand it over uncompressed.
    public var iccProfile: [UInt8]?
    /// Bits per luma sample as coded, for HEIC/HEIF/AVIF (8, 10 or 12; decoded to 8 bits);
    /// nil for other formats.
    public var bitDepth: Int?

    /// PNG (`eXIf`) and WebP (`EXIF` chunk): the Exif block as a TIFF structure (byte order
    /// first, any `Exif\0\0` prefix removed), where the orientation tag lives. JPEG's Exif is
    /// read from the markers by the engine.
    public var exif: [UInt8]?
    /// PNG (`iTXt` "XML:com.adobe.xmp") and WebP (`XMP ` chunk): the XMP packet, which may carry
    /// `tiff:Orientation` when there is no Exif.
    public var xmp: [UInt8]?

    /// Header facts with the ones a format lacks left `nil`; `exif` and `xmp` start `nil` and
    /// are set by the codecs that read them.
    public init(
        width: Int, height: Int, hasAlpha: Bool, frames: Int = 1, colorSpace: String? = nil,
        subsampling: String? = nil, isProgressive: Bool? = nil, iccProfile: [UInt8]? = nil
    ) {
        self.width = width
        self.height = height
        self.hasAlpha = hasAlpha
        self.frames = frames
        self.colorSpace = colorSpace
        self.subsampling = subsampling
        self.isProgressive = isProgressive
        self.iccProfile = iccProfile
    }
}

extension ImageInfo {
    /// An Exif payload as the TIFF structure it should be: some writers put JPEG's
    /// `Exif\0\0` prefix in a PNG `eXIf` or WebP `EXIF` chunk too.
    static func tiffStructure(_ payload: [UInt8]) -> [UInt8] {
        payload.starts(with: Array("Exif\0\0".utf8)) ? Array(payload.dropFirst(6)) : payload
    }
}
