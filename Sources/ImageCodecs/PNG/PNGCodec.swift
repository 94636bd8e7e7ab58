import Foundation

/// PNG through libpng: decoding row by row with its sequential read API (`PNGRowDecoder`,
/// behind a Swift chunk walk for signature, CRC, truncation and iCCP handling), encoding with
/// its simplified write API.
///
///     let image = try PNGCodec.decode(data, options: DecodeOptions())
///     let png = try PNGCodec.encode(image.pixels, iccProfile: image.iccProfile)
///
/// Decodes every PNG colour type and depth (palette, tRNS, grey+alpha, 16-bit reduced to
/// 8-bit, interlaced) to `.gray` (grey without alpha), `.rgba` (any alpha or tRNS) or `.rgb`.
/// APNG decodes its default image. Files with a gAMA chunk are converted to sRGB by libpng.
/// The encoded bytes are read in place, never copied.
public enum PNGCodec {
    static let name = "libpng"
    /// Largest ICC profile inflated from iCCP.
    static let profileLimit = 16 << 20

    /// Size, alpha, frame count (APNG acTL) and the ICC profile, without decoding pixels.
    ///
    /// Alpha is what `decode` would give: an alpha channel or a tRNS chunk.
    public static func readInfo(_ data: Data) throws(CodecError) -> ImageInfo {
        try withBytes(data) { raw throws(CodecError) in
            let decoder = try PNGRowDecoder(raw, pixelBudget: nil)
            var info = ImageInfo(
                width: decoder.width, height: decoder.height, hasAlpha: decoder.layout.hasAlpha,
                frames: decoder.chunks.animationFrames, iccProfile: decoder.iccProfile)
            info.exif = decoder.chunks.exif.map(ImageInfo.tiffStructure)
            info.xmp = decoder.chunks.xmpData.flatMap(xmpText)
            return info
        }
    }

    /// Largest XMP packet inflated from iTXt.
    static let xmpLimit = 1 << 20

    /// The text of an XMP iTXt chunk: keyword\0, compression flag, method, language\0,
    /// translated keyword\0, then the UTF-8 text (zlib-compressed when the flag is 1). nil when
    /// malformed: XMP only ever adds an orientation, so a broken packet is ignored.
    static func xmpText(_ data: [UInt8]) -> [UInt8]? {
        var i = PNGChunks.xmpKeyword.count
        guard i + 2 <= data.count else { return nil }
        let compressed = data[i] == 1
        i += 2
        for _ in 0..<2 {  // language tag, translated keyword
            guard let end = data[i...].firstIndex(of: 0) else { return nil }
            i = end + 1
        }
        guard i <= data.count else { return nil }
        if !compressed { return Array(data[i...]) }
        return try? Zlib.inflate(data[i...], limit: xmpLimit)
    }

    /// Decodes the (default) image: every row of a `PNGRowDecoder`. The IHDR size is checked
    /// against `options.pixelBudget` before anything else is read. `minimumSize` is ignored:
    /// PNG has no scaled decode.
    ///
    /// - Complexity: O(pixels); memory is the result plus two rows (libpng's buffers).
    public static func decode(_ data: Data, options: DecodeOptions) throws(CodecError) -> DecodedImage {
        try withBytes(data) { raw throws(CodecError) in
            let decoder = try PNGRowDecoder(raw, pixelBudget: options.pixelBudget)
            let pixels = try decoder.readAll()
            // A file cut in its image data decodes leniently (with damage); strict refuses it.
            if options.strict, let damage = decoder.damage.first { throw .corrupt(codec: name, message: damage) }
            return DecodedImage(
                pixels: pixels, sourceWidth: decoder.width, sourceHeight: decoder.height,
                iccProfile: decoder.iccProfile, warnings: decoder.warnings, damage: decoder.damage)
        }
    }

    /// Runs `body` over `data`'s bytes in place (Foundation's `withUnsafeBytes` with typed throws).
    static func withBytes<R>(_ data: Data, _ body: (UnsafeRawBufferPointer) throws(CodecError) -> R)
        throws(CodecError) -> R
    {
        let result = data.withUnsafeBytes { raw in Result { () throws(CodecError) -> R in try body(raw) } }
        return try result.get()
    }

    /// The ICC profile inflated from iCCP (name, 0, method 0, zlib stream), or a note on why not.
    static func profile(from chunks: PNGChunks) -> (profile: [UInt8]?, note: String?) {
        guard let data = chunks.iccpData else { return (nil, nil) }
        guard let nameEnd = data.prefix(80).firstIndex(of: 0), nameEnd + 2 <= data.count, data[nameEnd + 1] == 0 else {
            return (nil, "iCCP chunk is malformed; colour profile ignored")
        }
        do {
            return (try Zlib.inflate(data[(nameEnd + 2)...], limit: profileLimit), nil)
        } catch {
            return (nil, "iCCP profile could not be inflated (\(error.message)); colour profile ignored")
        }
    }
}
