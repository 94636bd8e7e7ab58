import Foundation
import MediaTypes

/// One frame composited onto the full canvas (disposal and blending applied), straight RGBA.
///
///     while let frame = try source.nextFrame() { frame.canvas.width == source.canvasWidth }
package struct AnimationFrame: Sendable {
    /// The whole canvas after this frame was drawn: layout `.rgba`, `canvasWidth` x `canvasHeight`.
    package var canvas: PixelBuffer
    /// How long the frame shows, as stored: GIF centiseconds x 10, WebP milliseconds; 0 is kept as 0.
    package var durationMilliseconds: Int

    package init(canvas: PixelBuffer, durationMilliseconds: Int) {
        self.canvas = canvas
        self.durationMilliseconds = durationMilliseconds
    }
}

/// Reads an animation frame by frame; one canvas (plus at most one saved canvas) is held at a time.
///
///     try ImageCodecs.withAnimation(data, format: .gif, options: DecodeOptions()) { source in
///         while let frame = try source.nextFrame() { /* frame.canvas */ }
///     }
package protocol AnimationSource: AnyObject {
    /// The canvas (logical screen) width every frame is composited onto.
    var canvasWidth: Int { get }
    /// The canvas height.
    var canvasHeight: Int { get }
    /// The number of frames, known from the container before any frame is decoded.
    var frameCount: Int { get }
    /// How many times the animation plays: 0 forever (GIF: the NETSCAPE2.0 count; none means once, reported as 1).
    var loopCount: Int { get }
    /// The sum of every frame's stored duration, known before any frame is decoded.
    var totalDurationMilliseconds: Int { get }
    /// Damage recovered from in lenient mode (`DecodeOptions.strict == false`), in the codec's words.
    var warnings: [String] { get }
    /// The next composited frame; nil after the last one. In strict mode damage throws `.corrupt`.
    func nextFrame() throws(CodecError) -> AnimationFrame?
}

extension ImageCodecs {
    /// The formats ``withAnimation(_:format:options:_:)`` opens: WebP (animated or still) and GIF.
    package static let animationFormats: Set<MediaFormat> = [.webp, .gif]

    /// Opens `data` (animated or still WebP, or GIF) as an animation; the source is valid only inside `body`.
    /// The canvas size is checked against `options.pixelBudget` before anything is decoded.
    ///
    /// Errors from opening the source and from `nextFrame` are `CodecError`; `body`'s own errors pass through.
    package static func withAnimation<R>(
        _ data: Data, format: MediaFormat, options: DecodeOptions = DecodeOptions(),
        _ body: (any AnimationSource) throws -> R
    ) throws -> R {
        switch format {
        case .gif: return try body(try GIFAnimationSource(data, options: options))
        case .webp: return try body(try WebPAnimationSource(data, options: options))
        default:
            throw CodecError.unsupported(
                codec: "ImageCodecs", message: "no animation decoder for \(format.rawValue); animations are read from gif and webp")
        }
    }

    /// Throws `.pixelBudgetExceeded` / `.invalidDimensions` for a canvas that may not be decoded.
    static func checkCanvas(width: Int, height: Int, options: DecodeOptions) throws(CodecError) {
        guard width > 0, height > 0 else { throw .invalidDimensions(width: width, height: height) }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= options.pixelBudget else {
            throw .pixelBudgetExceeded(width: width, height: height, budget: options.pixelBudget)
        }
    }
}
