/// How to decode: at what size, within what budget, how strictly.
///
///     var options = DecodeOptions()
///     options.minimumSize = (width: 256, height: 256)   // a thumbnail is enough
///     let image = try ImageCodecs.decode(data, format: .jpeg, options: options)
public struct DecodeOptions: Sendable {
    /// Decode at the smallest codec scale whose output still covers this box with the aspect
    /// ratio kept (JPEG DCT scaling, WebP `use_scaling`). nil decodes at full size. PNG,
    /// animated WebP, HEIC/HEIF and AVIF always decode at full size.
    public var minimumSize: (width: Int, height: Int)?
    /// Largest `width * height` of the header size that may be decoded. Checked before any
    /// pixel memory is allocated.
    public var pixelBudget: Int
    /// JPEG: a libjpeg warning ("Corrupt JPEG data: premature end of data segment") fails the
    /// decode. When false the warning is kept in `DecodedImage.warnings`.
    public var strict: Bool
    /// JPEG: read every scan of a progressive file, so damage anywhere in it shows (what
    /// passthrough validation needs). When false and the decode runs at 1/8, a progressive
    /// file stops once the coefficients the 1/8 output uses are final: the DC scans, plus every
    /// chroma scan when 4:2:0 chroma is scaled by a 2x2 IDCT. The pixels equal the full
    /// decode's; damage in the skipped scans goes unseen (a missing end marker still shows).
    ///
    ///     var thumbnail = DecodeOptions(minimumSize: (256, 256))
    ///     thumbnail.validateAllScans = false   // a progressive photo at 1/8 skips its AC scans
    public var validateAllScans: Bool

    /// Defaults: full size, a 50-megapixel budget, lenient, every JPEG scan read.
    public init(
        minimumSize: (width: Int, height: Int)? = nil, pixelBudget: Int = 50_000_000, strict: Bool = false,
        validateAllScans: Bool = true
    ) {
        self.minimumSize = minimumSize
        self.pixelBudget = pixelBudget
        self.strict = strict
        self.validateAllScans = validateAllScans
    }
}
