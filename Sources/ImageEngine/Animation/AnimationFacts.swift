import Foundation
import ImageCodecs
import MediaTypes

/// What an animation's container says before any frame is decoded.
struct AnimationFacts: Sendable {
    var canvas: Size
    var frames: Int
    /// 0 plays forever.
    var loopCount: Int
    var durationMilliseconds: Int

    /// "640x480, 30 frames, 3000 ms, loops forever".
    var summary: String {
        let loops = loopCount == 0 ? "loops forever" : "plays \(loopCount) time\(loopCount == 1 ? "" : "s")"
        return "\(canvas.width)x\(canvas.height), \(frames) frames, \(durationMilliseconds) ms, \(loops)"
    }
}

extension ImageProcessor {
    /// Opens `data` as an animation (`ImageCodecs.withAnimation`) and hands the source to `body`,
    /// turning the codec's errors into `ProcessingError.codec`.
    static func withAnimation<R>(
        _ data: Data, format: MediaFormat, limits: ProcessingLimits,
        _ body: (any AnimationSource) throws(ProcessingError) -> R
    ) throws(ProcessingError) -> R {
        let options = DecodeOptions(pixelBudget: limits.policy.pixelBudget, strict: limits.policy.strict)
        do {
            return try ImageCodecs.withAnimation(data, format: format, options: options) { source in
                try body(source)
            }
        } catch let error as CodecError {
            throw .codec(error)
        } catch let error as ProcessingError {
            throw error
        } catch {
            // withAnimation throws only CodecError, and the body only ProcessingError.
            throw .codec(.corrupt(codec: "animation decoder", message: "\(error)"))
        }
    }

    /// The container's facts, read without decoding a frame (the canvas is checked against the
    /// pixel budget on the way).
    static func animationFacts(_ data: Data, format: MediaFormat, limits: ProcessingLimits)
        throws(ProcessingError) -> AnimationFacts
    {
        try withAnimation(data, format: format, limits: limits) { source throws(ProcessingError) in
            AnimationFacts(
                canvas: Size(width: source.canvasWidth, height: source.canvasHeight), frames: source.frameCount,
                loopCount: source.loopCount, durationMilliseconds: source.totalDurationMilliseconds)
        }
    }
}

extension AnimationSource {
    /// Reads the next frame, as `ProcessingError.codec` on failure.
    func next() throws(ProcessingError) -> AnimationFrame? {
        do { return try nextFrame() } catch { throw .codec(error) }
    }
}

extension ImageProcessor {
    /// `inspect` for a GIF: the canvas against the pixel budget (before any decode), then, with
    /// `decode`, every frame decoded once and dropped, as a GIF passthrough in `process` does.
    static func inspectAnimation(_ data: Data, format: MediaFormat, limits: ProcessingLimits, decode: Bool)
        throws(ProcessingError) -> ImageInspection
    {
        let (facts, warnings) = try withAnimation(data, format: format, limits: limits) {
            source throws(ProcessingError) in
            let facts = AnimationFacts(
                canvas: Size(width: source.canvasWidth, height: source.canvasHeight), frames: source.frameCount,
                loopCount: source.loopCount, durationMilliseconds: source.totalDurationMilliseconds)
            guard decode else { return (facts, [String]()) }
            var decoded = 0
            while try source.next() != nil { decoded += 1 }
            guard decoded > 0 else {
                throw .codec(.corrupt(codec: format.displayName, message: "the animation has no frame that decodes"))
            }
            return (facts, source.warnings.map { "\(format.rawValue) decode: \($0)" })
        }
        return ImageInspection(
            width: facts.canvas.width, height: facts.canvas.height, frames: facts.frames, colorSpace: nil,
            orientation: .up, warnings: warnings)
    }
}
