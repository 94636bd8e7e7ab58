internal import CGIF
internal import CImageQuant
import Foundation

/// Writes an animated GIF frame by frame.
package struct GIFEncoder {
    /// Palette quantisation settings (libimagequant).
    package struct Quality: Sendable, Hashable {
        /// Most colours per frame's palette (2...256).
        package var maxColors: Int
        /// libimagequant speed 1 (slow, best) ... 10 (fast).
        package var speed: Int
        /// Floyd-Steinberg dithering level 0...1.
        package var dithering: Float
        package init(maxColors: Int, speed: Int, dithering: Float) {
            self.maxColors = maxColors
            self.speed = speed
            self.dithering = dithering
        }
        /// 256 colours, speed 4, full dithering.
        package static let standard = Quality(maxColors: 256, speed: 4, dithering: 1.0)
        /// 128 colours, speed 6, dithering 0.5: smaller files.
        package static let compact = Quality(maxColors: 128, speed: 6, dithering: 0.5)
        /// 64 colours, speed 8, no dithering: smallest files, for re-encodes that must shrink.
        package static let smallest = Quality(maxColors: 64, speed: 8, dithering: 0)
    }

    package init(width: Int, height: Int, loopCount: Int, quality: Quality = .standard, byteLimit: Int? = nil)
        throws(CodecError)
    {
        throw .unsupported(codec: "giflib", message: "not yet implemented")
    }

    package mutating func add(_ frame: PixelBuffer, durationMilliseconds: Int) throws(CodecError) {}

    package mutating func finish() throws(CodecError) -> Data { Data() }
}
