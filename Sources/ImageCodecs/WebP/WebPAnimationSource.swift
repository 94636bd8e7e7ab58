internal import CWebP
import Foundation

/// Reads an animated (or still) WebP frame by frame through libwebp's `WebPAnimDecoder`.
final class WebPAnimationSource: AnimationSource {
    let canvasWidth: Int
    let canvasHeight: Int
    let frameCount: Int
    let loopCount: Int
    let totalDurationMilliseconds: Int
    let warnings: [String] = []

    init(_ data: Data, options: DecodeOptions) throws(CodecError) {
        throw .unsupported(codec: "libwebp", message: "not yet implemented")
    }

    func nextFrame() throws(CodecError) -> AnimationFrame? { nil }
}
