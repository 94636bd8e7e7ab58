internal import CPNG
import Foundation

/// PNG through libpng's simplified API, with a Swift chunk walk in front for signature, CRC,
/// truncation and iCCP handling.
///
///     let image = try PNGCodec.decode(data, options: DecodeOptions())
///     let png = try PNGCodec.encode(image.pixels, iccProfile: image.iccProfile)
///
/// Decodes every PNG colour type and depth (palette, tRNS, grey+alpha, 16-bit reduced to
/// 8-bit, interlaced) to `.gray` (grey without alpha), `.rgba` (any alpha or tRNS) or `.rgb`.
/// APNG decodes its default image. Files with a gAMA chunk are converted to sRGB by libpng.
public enum PNGCodec {
    static let name = "libpng"
    /// Largest ICC profile inflated from iCCP.
    static let profileLimit = 16 << 20

    /// Size, alpha, frame count (APNG acTL) and the ICC profile, without decoding pixels.
    public static func readInfo(_ data: Data) throws(CodecError) -> ImageInfo {
        let bytes = [UInt8](data)
        let chunks = try PNGChunks(bytes) { _, _ throws(CodecError) in }
        let image = try PNGImageHandle(reading: bytes)
        var info = ImageInfo(
            width: chunks.width, height: chunks.height,
            hasAlpha: image.pointer.pointee.format & UInt32(PNG_FORMAT_FLAG_ALPHA) != 0,
            frames: chunks.animationFrames, iccProfile: profile(from: chunks).profile)
        info.exif = chunks.exif.map(ImageInfo.tiffStructure)
        info.xmp = chunks.xmpData.flatMap(xmpText)
        return info
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

    /// Decodes the (default) image. The IHDR size is checked against `options.pixelBudget`
    /// before anything else is read. `minimumSize` is ignored: PNG has no scaled decode.
    public static func decode(_ data: Data, options: DecodeOptions) throws(CodecError) -> DecodedImage {
        let bytes = [UInt8](data)
        let chunks = try PNGChunks(bytes) { width, height throws(CodecError) in
            try Limits.check(width: width, height: height, budget: options.pixelBudget)
        }
        let image = try PNGImageHandle(reading: bytes)
        let source = image.pointer.pointee.format
        let layout: PixelBuffer.Layout =
            source & UInt32(PNG_FORMAT_FLAG_ALPHA) != 0
            ? .rgba
            : source & UInt32(PNG_FORMAT_FLAG_COLOR) != 0 ? .rgb : .gray
        let width = Int(image.pointer.pointee.width), height = Int(image.pointer.pointee.height)
        try Limits.check(width: width, height: height, budget: options.pixelBudget)
        image.pointer.pointee.format =
            switch layout {
            case .gray: UInt32(PNG_FORMAT_GRAY)
            case .rgb: UInt32(PNG_FORMAT_RGB)
            case .rgba: UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
            }
        // 16-bit files without gAMA/sRGB are sRGB-encoded, not linear.
        image.pointer.pointee.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
        var pixels = PixelBuffer(width: width, height: height, layout: layout)
        let stride = pixels.stride
        let ok = pixels.withUnsafeMutableBytes { buffer in
            png_image_finish_read(image.pointer, nil, buffer.baseAddress, Int32(stride), nil)
        }
        guard ok != 0 else { throw .corrupt(codec: name, message: image.message) }
        var warnings: [String] = []
        if image.pointer.pointee.warning_or_error & UInt32(PNG_IMAGE_WARNING) != 0 { warnings.append(image.message) }
        let (iccProfile, note) = profile(from: chunks)
        if let note { warnings.append(note) }
        return DecodedImage(
            pixels: pixels, sourceWidth: width, sourceHeight: height, iccProfile: iccProfile, warnings: warnings)
    }

    /// The ICC profile inflated from iCCP (name, 0, method 0, zlib stream), or a note on why not.
    private static func profile(from chunks: PNGChunks) -> (profile: [UInt8]?, note: String?) {
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
