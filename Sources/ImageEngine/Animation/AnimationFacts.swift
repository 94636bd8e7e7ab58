import Foundation
import ImageCodecs
import MediaTypes

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
