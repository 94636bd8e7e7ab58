internal import CWebP
import Foundation

/// WebP through libwebp's advanced decoding API, and libwebpdemux for animations and ICCP.
///
///     let image = try WebPCodec.decode(data, options: DecodeOptions(minimumSize: (320, 320)))
///
/// Lossy without alpha decodes to `.rgb`, anything with alpha to `.rgba`. Animated files
/// decode their first frame, placed on the canvas (transparent outside the frame); they are
/// scaled only when that frame fills the canvas.
public enum WebPCodec {
    static let name = "libwebp"

    /// Canvas size, alpha, frame count and ICC profile, without decoding.
    public static func readInfo(_ data: Data) throws(CodecError) -> ImageInfo {
        let bytes = [UInt8](data)
        let features = try features(bytes)
        var info = ImageInfo(
            width: Int(features.width), height: Int(features.height), hasAlpha: features.has_alpha != 0)
        guard info.width > 0, info.height > 0 else { throw .invalidDimensions(width: info.width, height: info.height) }
        if let demuxer = try? WebPDemuxer(bytes) {
            info.frames = max(1, demuxer.frameCount)
            info.iccProfile = demuxer.iccProfile
            info.exif = demuxer.exif
            info.xmp = demuxer.xmp
        }
        return info
    }

    /// Decodes a WebP (its first frame when animated) to `.rgb` or `.rgba` pixels, scaled down
    /// to cover `options.minimumSize` when the frame fills the canvas.
    ///
    /// - Throws: `CodecError` when the bitstream is invalid or truncated, or the canvas is over
    ///   `options.pixelBudget` (checked before decoding).
    public static func decode(_ data: Data, options: DecodeOptions) throws(CodecError) -> DecodedImage {
        let bytes = [UInt8](data)
        let features = try features(bytes)
        let width = Int(features.width), height = Int(features.height)
        try Limits.check(width: width, height: height, budget: options.pixelBudget)
        let demuxer = try? WebPDemuxer(bytes)
        let profile = demuxer?.iccProfile
        guard features.has_animation != 0 else {
            let size = Scaling.webp(width: width, height: height, box: options.minimumSize)
            let pixels = try decodeStill(bytes, alpha: features.has_alpha != 0, size: size, sourceSize: (width, height))
            return DecodedImage(pixels: pixels, sourceWidth: width, sourceHeight: height, iccProfile: profile)
        }
        guard let demuxer else { throw .corrupt(codec: name, message: "the animation container could not be parsed") }
        let frame = try demuxer.firstFrame()
        let frameFeatures = try self.features(frame.bitstream)
        let frameAlpha = frameFeatures.has_alpha != 0
        if frame.x == 0, frame.y == 0, frame.width == width, frame.height == height {
            let size = Scaling.webp(width: width, height: height, box: options.minimumSize)
            let pixels = try decodeStill(frame.bitstream, alpha: frameAlpha, size: size, sourceSize: (width, height))
            return DecodedImage(pixels: pixels, sourceWidth: width, sourceHeight: height, iccProfile: profile)
        }
        // A first frame smaller than the canvas: composite onto a transparent canvas.
        let framePixels = try decodeStill(
            frame.bitstream, alpha: true, size: (frame.width, frame.height), sourceSize: (frame.width, frame.height))
        var canvas = PixelBuffer(width: width, height: height, layout: .rgba)
        for y in 0..<frame.height where frame.y + y < height {
            for x in 0..<frame.width where frame.x + x < width {
                for c in 0..<4 { canvas[frame.x + x, frame.y + y, c] = framePixels[x, y, c] }
            }
        }
        return DecodedImage(pixels: canvas, sourceWidth: width, sourceHeight: height, iccProfile: profile)
    }

    private static func features(_ bytes: [UInt8]) throws(CodecError) -> WebPBitstreamFeatures {
        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
        guard status == VP8_STATUS_OK else { throw error(status) }
        return features
    }

    /// One still bitstream into caller-sized memory, scaled by libwebp when `size` differs.
    ///
    /// libwebp filters one macroblock row on a thread of its own while it parses the next
    /// (`use_threads`, as libvips' loader asks): the same pixels, one worker fitting the WebP
    /// photos 1.22x -> 1.43x libvips' speed, and no change when every core is busy. A thread it
    /// cannot start is reported as VP8_STATUS_OUT_OF_MEMORY (a process at its thread limit):
    /// the image is then decoded again on this thread alone, so a good file is never refused
    /// for it.
    private static func decodeStill(
        _ bytes: [UInt8], alpha: Bool, size: (width: Int, height: Int), sourceSize: (Int, Int)
    ) throws(CodecError) -> PixelBuffer {
        let layout: PixelBuffer.Layout = alpha ? .rgba : .rgb
        var pixels = PixelBuffer(width: size.width, height: size.height, layout: layout)
        var status = try decodeStill(bytes, alpha: alpha, size: size, sourceSize: sourceSize, into: &pixels, threads: true)
        if status == VP8_STATUS_OUT_OF_MEMORY {
            status = try decodeStill(bytes, alpha: alpha, size: size, sourceSize: sourceSize, into: &pixels, threads: false)
        }
        guard status == VP8_STATUS_OK else { throw error(status) }
        return pixels
    }

    private static func decodeStill(
        _ bytes: [UInt8], alpha: Bool, size: (width: Int, height: Int), sourceSize: (Int, Int),
        into pixels: inout PixelBuffer, threads: Bool
    ) throws(CodecError) -> VP8StatusCode {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw .corrupt(codec: name, message: "libwebp version mismatch (WebPInitDecoderConfig failed)")
        }
        defer { WebPFreeDecBuffer(&config.output) }
        config.options.use_threads = threads ? 1 : 0
        if size != sourceSize {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(size.width)
            config.options.scaled_height = Int32(size.height)
        }
        let stride = pixels.stride
        return pixels.withUnsafeMutableBytes { output in
            config.output.colorspace = alpha ? MODE_RGBA : MODE_RGB
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = output.baseAddress
            config.output.u.RGBA.stride = Int32(stride)
            config.output.u.RGBA.size = output.count
            return bytes.withUnsafeBufferPointer { WebPDecode($0.baseAddress, $0.count, &config) }
        }
    }

    /// libwebp's status codes, in words.
    static func error(_ status: VP8StatusCode) -> CodecError {
        switch status {
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            .unsupported(codec: name, message: "unsupported feature (VP8_STATUS_UNSUPPORTED_FEATURE)")
        case VP8_STATUS_NOT_ENOUGH_DATA:
            .corrupt(codec: name, message: "not enough data: the file is truncated (VP8_STATUS_NOT_ENOUGH_DATA)")
        case VP8_STATUS_BITSTREAM_ERROR: .corrupt(codec: name, message: "bitstream error (VP8_STATUS_BITSTREAM_ERROR)")
        case VP8_STATUS_OUT_OF_MEMORY: .corrupt(codec: name, message: "out of memory (VP8_STATUS_OUT_OF_MEMORY)")
        case VP8_STATUS_INVALID_PARAM: .corrupt(codec: name, message: "invalid parameter (VP8_STATUS_INVALID_PARAM)")
        case VP8_STATUS_SUSPENDED: .corrupt(codec: name, message: "decoding suspended (VP8_STATUS_SUSPENDED)")
        case VP8_STATUS_USER_ABORT: .corrupt(codec: name, message: "decoding aborted (VP8_STATUS_USER_ABORT)")
        default: .corrupt(codec: name, message: "unknown status \(status.rawValue)")
        }
    }
}
