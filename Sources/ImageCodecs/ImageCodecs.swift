internal import CHeif
internal import CPNG
internal import CTurboJPEG
internal import CWebP
import Foundation
import MediaTypes

/// Dispatch by format to the codec that reads it.
///
///     let info = try ImageCodecs.readInfo(data, format: .jpeg)
///     let image = try ImageCodecs.decode(data, format: .png, options: DecodeOptions())
///
/// JPEG, PNG, WebP, HEIC/HEIF and AVIF are decoded here; other formats throw `.unsupported`.
public enum ImageCodecs {
    /// The formats ``readInfo(_:format:)`` and ``decode(_:format:options:)`` accept: JPEG,
    /// PNG, WebP, and HEIC, HEIF and AVIF (libheif). Every other format, including GIF,
    /// throws `.unsupported`.
    public static let decodableFormats: Set<MediaFormat> = [.jpeg, .png, .webp, .heic, .heif, .avif]

    /// What the header of `data` says (size, alpha, frames, colour facts, ICC, Exif, XMP),
    /// read without decoding pixels, by the codec for `format`.
    ///
    ///     let info = try ImageCodecs.readInfo(data, format: .png)   // info.width, info.hasAlpha
    ///
    /// - Throws: `CodecError.unsupported` when `format` is not in ``decodableFormats``; the
    ///   codec's error when the header is missing, truncated or invalid.
    public static func readInfo(_ data: Data, format: MediaFormat) throws(CodecError) -> ImageInfo {
        switch format {
        case .jpeg: try JPEGCodec.readInfo(data)
        case .png: try PNGCodec.readInfo(data)
        case .webp: try WebPCodec.readInfo(data)
        case .heic, .heif, .avif: try HEIFCodec.readInfo(data)
        default: throw unsupported(format)
        }
    }

    /// Decodes `data` as `format` into 8-bit pixels in one buffer, at full size or at the
    /// shrink-on-load scale `options.minimumSize` asks for.
    ///
    ///     let image = try ImageCodecs.decode(data, format: .jpeg, options: DecodeOptions(minimumSize: (256, 256)))
    ///     image.pixels.width   // 500 for a 4000x3000 JPEG (1/8 scale); image.sourceWidth is 4000
    ///
    /// The header size is checked against `options.pixelBudget` before any pixel memory is
    /// taken. In lenient mode (`options.strict == false`) recoverable problems are returned in
    /// `DecodedImage.warnings` and `damage` instead of thrown.
    ///
    /// - Throws: `CodecError`: `.unsupported` for formats outside ``decodableFormats``,
    ///   `.pixelBudgetExceeded` for an image over the budget, or the codec's failure.
    public static func decode(_ data: Data, format: MediaFormat, options: DecodeOptions = DecodeOptions())
        throws(CodecError) -> DecodedImage
    {
        switch format {
        case .jpeg: try JPEGCodec.decode(data, options: options)
        case .png: try PNGCodec.decode(data, options: options)
        case .webp: try WebPCodec.decode(data, options: options)
        case .heic, .heif, .avif: try HEIFCodec.decode(data, options: options)
        default: throw unsupported(format)
        }
    }

    /// Opens a row decoder over `data` and hands it to `body`; the source reads `data` in place
    /// and is valid only inside `body`. The header size is checked against
    /// `options.pixelBudget` before anything is decoded; `options.minimumSize` picks the
    /// shrink-on-load scale as in `decode`.
    ///
    /// Errors from opening the decoder and from `readRows` are `CodecError`; `body`'s own
    /// errors pass through unchanged.
    package static func withRows<R>(
        _ data: Data, format: MediaFormat, options: DecodeOptions = DecodeOptions(),
        _ body: (any ImageRowSource) throws -> R
    ) throws -> R {
        switch format {
        case .jpeg: return try JPEGCodec.withRows(data, options: options, body)
        case .png: return try PNGCodec.withRows(data, options: options, body)
        // libwebp's scaled decode already comes out at the covering size, no larger than the output.
        case .webp: return try body(FrameRowSource(try WebPCodec.decode(data, options: options)))
        // libheif decodes the whole image; its rows are read in place from libheif's plane.
        case .heic, .heif, .avif: return try HEIFCodec.withRows(data, options: options, body)
        default: throw unsupported(format)
        }
    }

    /// The pixel size `decode` produces for a `width` x `height` source and `minimumSize`:
    /// JPEG picks the smallest TurboJPEG factor (1/8 ... 1) covering the box, WebP scales to
    /// the smallest aspect-kept size covering it, other formats (PNG, HEIF, AVIF) decode at full
    /// size.
    ///
    ///     ImageCodecs.scaledSize(width: 4000, height: 3000, minimumSize: (256, 256), format: .jpeg)  // (500, 375)
    public static func scaledSize(
        width: Int, height: Int, minimumSize: (width: Int, height: Int)?, format: MediaFormat
    ) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return (width, height) }
        switch format {
        case .jpeg:
            let s = Scaling.jpeg(width: width, height: height, box: minimumSize)
            return (s.width, s.height)
        case .webp: return Scaling.webp(width: width, height: height, box: minimumSize)
        default: return (width, height)
        }
    }

    private static func unsupported(_ format: MediaFormat) -> CodecError {
        .unsupported(
            codec: "ImageCodecs", message: "no decoder for \(format.rawValue); decodable formats are jpeg, png, webp, heic, heif and avif"
        )
    }
}

/// Versions of the C codecs linked in, for `--version` and bug reports.
public enum CodecVersions {
    /// libwebp's decoder version packed as `(major << 16) | (minor << 8) | revision`, as
    /// `WebPGetDecoderVersion()` returns it: `0x010205` is 1.2.5.
    public static var webpDecoder: Int { Int(WebPGetDecoderVersion()) }
    /// The version string of the libpng linked at run time, e.g. `"1.6.39"`.
    public static var png: String { String(cString: png_get_libpng_ver(nil)) }
    /// The version string of the libheif linked at run time (HEIC, HEIF, AVIF), e.g. `"1.15.1"`.
    public static var heif: String { String(cString: heif_get_version()) }
}
