internal import CGIF
import Foundation

/// Reads a GIF record by record through giflib and composites each frame onto one canvas.
final class GIFAnimationSource: AnimationSource {
    let canvasWidth: Int
    let canvasHeight: Int
    let frameCount: Int
    let loopCount: Int
    let totalDurationMilliseconds: Int
    private(set) var warnings: [String] = []

    init(_ data: Data, options: DecodeOptions) throws(CodecError) {
        throw .unsupported(codec: "giflib", message: "not yet implemented")
    }

    func nextFrame() throws(CodecError) -> AnimationFrame? { nil }
}
