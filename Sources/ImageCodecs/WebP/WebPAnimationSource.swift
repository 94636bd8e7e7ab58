internal import CWebP
import Foundation

/// Reads an animated (or still) WebP frame by frame through libwebp's `WebPAnimDecoder`, which
/// composites each frame (blending, disposal) onto its own canvas; a still WebP is a one-frame animation.
///
///     let source = try WebPAnimationSource(data, options: DecodeOptions())
///     while let frame = try source.nextFrame() { _ = frame.durationMilliseconds }
///
/// The canvas size, frame count, loop count and durations come from the demuxer (no pixels
/// decoded) and the canvas is checked against the pixel budget before the decoder is made.
/// Memory: a copy of the file, libwebp's canvas and previous-frame canvas, and the output frame.
final class WebPAnimationSource: AnimationSource {
    let canvasWidth: Int
    let canvasHeight: Int
    let frameCount: Int
    let loopCount: Int
    let totalDurationMilliseconds: Int
    private(set) var warnings: [String] = []

    private let storage: UnsafeMutableBufferPointer<UInt8>
    private let decoder: OpaquePointer
    private let strict: Bool
    private var lastTimestamp = 0
    private var decoded = 0
    private var finished = false

    init(_ data: Data, options: DecodeOptions) throws(CodecError) {
        storage = .allocate(capacity: max(1, data.count))
        _ = storage.initialize(from: data)
        var webpData = WebPData(bytes: UnsafePointer(storage.baseAddress), size: data.count)
        // The demuxer reads the container only: canvas, loop count, every frame's duration.
        guard let demuxer = WebPDemux(&webpData) else {
            storage.deallocate()
            throw .corrupt(codec: WebPCodec.name, message: "the RIFF/WebP container could not be parsed (truncated or damaged)")
        }
        let width = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH))
        let height = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT))
        let frames = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
        let loops = Int(WebPDemuxGetI(demuxer, WEBP_FF_LOOP_COUNT))
        var total = 0
        var iterator = WebPIterator()
        if WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 {
            repeat { total += Int(max(0, iterator.duration)) } while WebPDemuxNextFrame(&iterator) != 0
            WebPDemuxReleaseIterator(&iterator)
        }
        WebPDemuxDelete(demuxer)
        do throws(CodecError) {
            try ImageCodecs.checkCanvas(width: width, height: height, options: options)
            guard frames > 0 else {
                throw .corrupt(codec: WebPCodec.name, message: "the WebP file holds no frame")
            }
        } catch {
            storage.deallocate()
            throw error
        }

        var decoderOptions = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&decoderOptions) != 0 else {
            storage.deallocate()
            throw .corrupt(codec: WebPCodec.name, message: "libwebp version mismatch (WebPAnimDecoderOptionsInit failed)")
        }
        decoderOptions.color_mode = MODE_RGBA
        decoderOptions.use_threads = 0
        guard let made = WebPAnimDecoderNew(&webpData, &decoderOptions) else {
            storage.deallocate()
            throw .corrupt(codec: WebPCodec.name, message: "WebPAnimDecoderNew refused the file (damaged frame headers)")
        }
        decoder = made
        canvasWidth = width
        canvasHeight = height
        frameCount = frames
        // A still WebP has no ANIM chunk; it plays once like any still image, reported as 0 (forever) by the demuxer.
        loopCount = loops
        totalDurationMilliseconds = total
        strict = options.strict
    }

    deinit {
        WebPAnimDecoderDelete(decoder)
        storage.deallocate()
    }

    func nextFrame() throws(CodecError) -> AnimationFrame? {
        guard !finished, WebPAnimDecoderHasMoreFrames(decoder) != 0 else { return nil }
        var buffer: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0, let buffer else {
            let message = "frame \(decoded + 1) of \(frameCount) could not be decoded (damaged or truncated bitstream)"
            // Lenient: the frames already decoded stand, with a warning; strict: the file is refused.
            if strict || decoded == 0 { throw .corrupt(codec: WebPCodec.name, message: message) }
            warnings.append(message)
            finished = true
            return nil
        }
        let count = canvasWidth * canvasHeight * 4
        let canvas = PixelBuffer(
            width: canvasWidth, height: canvasHeight, layout: .rgba,
            bytes: Array(UnsafeBufferPointer(start: buffer, count: count)))
        let duration = max(0, Int(timestamp) - lastTimestamp)
        lastTimestamp = Int(timestamp)
        decoded += 1
        return AnimationFrame(canvas: canvas, durationMilliseconds: duration)
    }
}
