/// How to decode: at what size, within what budget, how strictly.
///
///     var options = DecodeOptions()
///     options.minimumSize = (width: 256, height: 256)   // a thumbnail is enough
///     let image = try ImageCodecs.decode(data, format: .jpeg, options: options)
public struct DecodeOptions: Sendable {
    /// Decode at the smallest codec scale whose output still covers this box with the aspect
    /// ratio kept (JPEG DCT scaling, WebP `use_scaling`). nil decodes at full size. PNG and
    /// animated WebP always decode at full size.
    public var minimumSize: (width: Int, height: Int)?
    /// Largest `width * height` of the header size that may be decoded. Checked before any
    /// pixel memory is allocated.
    public var pixelBudget: Int
    /// JPEG: a libjpeg warning ("Corrupt JPEG data: premature end of data segment") fails the
    /// decode. When false the warning is kept in `DecodedImage.warnings`.
    public var strict: Bool

    public init(minimumSize: (width: Int, height: Int)? = nil, pixelBudget: Int = 50_000_000, strict: Bool = false) {
        self.minimumSize = minimumSize
        self.pixelBudget = pixelBudget
        self.strict = strict
    }
}
