/// Decoded pixels with what the source said about them.
///
///     let decoded = try PNGCodec.decode(data, options: .init())
///     print(decoded.pixels.width, decoded.sourceWidth, decoded.warnings)
public struct DecodedImage: Sendable {
    public var pixels: PixelBuffer
    /// The size in the header; larger than `pixels` when decoded at a reduced scale.
    public var sourceWidth: Int
    public var sourceHeight: Int
    public var iccProfile: [UInt8]?
    /// Problems the codec recovered from (lenient mode), in its own words.
    public var warnings: [String]

    public init(
        pixels: PixelBuffer, sourceWidth: Int, sourceHeight: Int, iccProfile: [UInt8]? = nil, warnings: [String] = []
    ) {
        self.pixels = pixels
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.iccProfile = iccProfile
        self.warnings = warnings
    }
}
