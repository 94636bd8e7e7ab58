internal import CJPEGShim
import Foundation

/// JPEG through libjpeg-turbo 2.1: header reads and scaled decodes on libjpeg's scanline API
/// (`JPEGRowDecoder`), encodes through TurboJPEG.
///
///     let info = try JPEGCodec.readInfo(data)
///     let image = try JPEGCodec.decode(data, options: DecodeOptions(minimumSize: (256, 256)))
///     let jpeg = try JPEGCodec.encode(image.pixels, quality: 85)
///
/// Decodes 8-bit baseline, extended, progressive and arithmetic-coded JPEGs in grey, YCbCr,
/// RGB, CMYK and YCCK. 12-bit and lossless JPEGs throw `.unsupported`.
public enum JPEGCodec {
    static let name = "libjpeg-turbo"

    /// The environment variable that turns the project's own JPEG decoding off: `libjpeg` there.
    package static let decoderVariable = "PUSHATTACH_JPEG_DECODER"

    /// Whether JPEG decodes use the project's own decoding beside libjpeg-turbo's: the baseline
    /// Huffman decoder and the SIMD 3x3-7x7 IDCTs of CJPEGShim (both read libjpeg-turbo 2.1's
    /// internal structs, fenced at build time by `libjpeg_fence.h`), 4:2:0 chroma decoded at its
    /// own scale, the DC-only reader at 1/8 (`JPEGDCDecoder`) and the progressive validation
    /// reader (`JPEGProgressiveReader`). True unless `PUSHATTACH_JPEG_DECODER=libjpeg` is in the
    /// environment when the process first decodes a JPEG: then libjpeg-turbo decodes every JPEG
    /// alone, the way out should its internals ever disagree with ours. The pixels are the same
    /// except at 1/8, where a baseline file's chroma is then libjpeg's 2x2 IDCT of each block
    /// instead of its DC; it is slower (the own Huffman decoder alone made W2 1.13x as fast).
    package static let ownDecoding: Bool = {
        guard let value = getenv(decoderVariable) else { return true }
        return String(cString: value) != "libjpeg"
    }()

    /// Size, colour space, subsampling, progressive flag and ICC profile, without decoding.
    ///
    ///     let info = try JPEGCodec.readInfo(data)   // info.colorSpace == "ycbcr"
    ///
    /// - Complexity: reads the marker segments up to the first scan; `data` is read in place.
    public static func readInfo(_ data: Data) throws(CodecError) -> ImageInfo {
        try reading(data) { bytes throws(CodecError) in try readInfo(bytes) }
    }

    /// `readInfo(_:)` from bytes the caller already holds as `[UInt8]` (no copy).
    package static func readInfo(bytes: [UInt8]) throws(CodecError) -> ImageInfo {
        try reading(bytes) { raw throws(CodecError) in try readInfo(raw) }
    }

    /// `readInfo(_:)` over bytes read in place (a mapped or spooled file, a `Data`'s storage).
    package static func readInfo(_ bytes: UnsafeRawBufferPointer) throws(CodecError) -> ImageInfo {
        let decoder = try JPEGRowDecoder(header: bytes, strict: false)
        let header = decoder.header
        return ImageInfo(
            width: header.width, height: header.height, hasAlpha: false, frames: 1,
            colorSpace: colorSpaceName(header.colorSpace), subsampling: subsamplingName(header.subsampling),
            isProgressive: header.isProgressive, iccProfile: decoder.embeddedProfile)
    }

    /// Runs `body` over `data`'s bytes in place, with `CodecError` kept typed through
    /// `Data.withUnsafeBytes` (which only rethrows `any Error`).
    static func reading<R>(_ data: Data, _ body: (UnsafeRawBufferPointer) throws(CodecError) -> R) throws(CodecError)
        -> R
    {
        let result: Result<R, CodecError> = data.withUnsafeBytes { raw in
            do throws(CodecError) { return .success(try body(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// `reading(_:_:)` for `[UInt8]`.
    static func reading<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(CodecError) -> R)
        throws(CodecError) -> R
    {
        let result: Result<R, CodecError> = bytes.withUnsafeBytes { raw in
            do throws(CodecError) { return .success(try body(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// A decoder's failure as a `CodecError`: the variants libjpeg says it does not decode (by
    /// message code, `pa_jpeg_error_is_unsupported`) are `.unsupported`, the rest `.corrupt`,
    /// each with libjpeg's words.
    static func failure(of decoder: OpaquePointer) -> CodecError {
        let message = String(cString: pa_jpeg_error_message(decoder))
        if pa_jpeg_error_is_unsupported(decoder) != 0 { return .unsupported(codec: name, message: message) }
        return .corrupt(codec: name, message: message)
    }

    static func colorSpaceName(_ value: Int32) -> String? {
        switch value {
        case PA_JPEG_CS_RGB: "rgb"
        case PA_JPEG_CS_YCBCR: "ycbcr"
        case PA_JPEG_CS_GRAY: "gray"
        case PA_JPEG_CS_CMYK: "cmyk"
        case PA_JPEG_CS_YCCK: "ycck"
        default: nil
        }
    }

    static func subsamplingName(_ value: Int32) -> String? {
        switch value {
        case PA_JPEG_SAMP_444: "4:4:4"
        case PA_JPEG_SAMP_422: "4:2:2"
        case PA_JPEG_SAMP_420: "4:2:0"
        case PA_JPEG_SAMP_GRAY: "gray"
        case PA_JPEG_SAMP_440: "4:4:0"
        case PA_JPEG_SAMP_411: "4:1:1"
        default: nil
        }
    }
}
