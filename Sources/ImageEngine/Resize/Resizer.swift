import MediaTypes
import ImageCodecs

/// A separable Lanczos3 resizer with the orientation fused into its last pass.
///
///     let resizer = Resizer()   // one per worker thread
///     let box = FitBox.fit(Size(width: 480, height: 720), in: Size(width: 256, height: 256))
///     let thumb = resizer.resize(decoded, to: box, orientation: .right)
///
/// The two passes meet in a 16-bit intermediate (6 fraction bits, overshoot kept). When rows
/// shrink the vertical pass runs first, otherwise the horizontal one, so the per-pixel horizontal
/// pass always runs over the fewer rows; an axis whose size does not change is skipped. RGBA with any
/// non-opaque pixel is resampled premultiplied, so transparent colour never bleeds. When an
/// axis shrinks 4× or more, an integer box average (like libvips' shrink) first takes it to
/// between 2× and 4× the target, so Lanczos3 taps stay few on huge reductions.
///
/// `RowResizer` gives the same bits from rows streamed out of a decoder; this one resizes a
/// buffer already in memory (the thumbnail from the main output, tests).
///
/// An instance owns its weight tables and scratch buffers and reuses them across calls, so it
/// is **not thread-safe**: the pipeline keeps one per worker thread.
package final class Resizer {
    private let weightCache = ResampleWeightCache()
    private let premultiplied = ScratchBuffer<UInt8>()
    private let intermediate = ScratchBuffer<Int16>()
    private let accumulator = ScratchBuffer<Float>()
    private let boxed = ScratchBuffer<UInt8>()
    private let rowSums = ScratchBuffer<UInt32>()
    private let floatRow = ScratchBuffer<Float>()

    /// A resizer with empty weight tables and scratch buffers, which grow on first use.
    package init() {}

    /// `image` resampled and turned upright.
    ///
    /// - Parameters:
    ///   - size: the final, **upright** output size. With an orientation that swaps dimensions
    ///     (5...8) the stored image is resampled to `size.height × size.width` first.
    ///   - orientation: how `image` is stored, usually from `ExifOrientation.read(jpeg:)`.
    /// - Returns: a packed buffer of `size` in the input's layout (the input itself when the
    ///   size already matches and `orientation` is `.up`).
    /// - Complexity: O(input pixels) for the opacity scan and any box reduce, plus O(output
    ///   width × rows × 7–24 taps) for Lanczos3 (taps are about 6 × the factor left after the box).
    ///
    /// `size` must be positive and `image` non-empty (programmer errors otherwise).
    package func resize(_ image: PixelBuffer, to size: Size, orientation: Orientation = .up) -> PixelBuffer {
        precondition(size.width > 0 && size.height > 0, "resize target must be positive, got \(size)")
        precondition(image.width > 0 && image.height > 0, "cannot resize an empty image")
        let stored = orientation.swapsDimensions ? Size(width: size.height, height: size.width) : size
        if stored.width == image.width && stored.height == image.height { return orientation.apply(to: image) }

        let channels = image.layout.channels
        var out = PixelBuffer(width: size.width, height: size.height, layout: image.layout)
        let final = PixelMapping(
            orientation, storedWidth: stored.width, storedHeight: stored.height,
            channels: channels, uprightStride: out.stride)
        let fx = BoxReduce.factor(source: image.width, destination: stored.width)
        let fy = BoxReduce.factor(source: image.height, destination: stored.height)

        image.withUnsafeBytes { raw in
            out.withUnsafeMutableBytes { outBytes in
                let dst = outBytes.baseAddress!
                var src = Plane(base: raw.baseAddress!, width: image.width, height: image.height, stride: image.stride)
                let premultiply =
                    image.layout == .rgba
                    && !Premultiply.isOpaque(src.base, width: src.width, height: src.height, stride: src.stride)
                if fx > 1 || fy > 1 {
                    // Large reduction: box-average first (premultiplying on the way), Lanczos3 the rest.
                    let w = BoxReduce.reducedLength(src.width, factor: fx),
                        h = BoxReduce.reducedLength(src.height, factor: fy)
                    let p = boxed.pointer(count: w * h * channels)
                    BoxReduce.reduce(
                        src.base, width: src.width, height: src.height, stride: src.stride, channels: channels,
                        fx: fx, fy: fy, premultiply: premultiply,
                        rowSums: rowSums.pointer(count: src.width * channels), into: p)
                    src = Plane(base: UnsafePointer(p), width: w, height: h, stride: w * channels)
                } else if premultiply {
                    let p = premultiplied.pointer(count: src.width * src.height * 4)
                    Premultiply.premultiply(src.base, width: src.width, height: src.height, stride: src.stride, into: p)
                    src = Plane(base: UnsafePointer(p), width: src.width, height: src.height, stride: src.width * 4)
                }
                resample(src, to: stored, channels: channels, into: dst, final)
                if premultiply { Premultiply.unpremultiply(dst, count: size.width * size.height) }
            }
        }
        return out
    }

    /// 8-bit pixels the passes read: the caller's image, or one of the scratch buffers.
    private struct Plane {
        var base: UnsafePointer<UInt8>
        var width: Int
        var height: Int
        var stride: Int
    }

    /// The Lanczos3 passes from `src` to `stored`, the last one writing through `final`.
    private func resample(
        _ src: Plane, to stored: Size, channels: Int, into dst: UnsafeMutablePointer<UInt8>, _ final: PixelMapping
    ) {
        let wx = stored.width != src.width ? weights(src.width, stored.width, .horizontal(channels: channels)) : nil
        let wy = stored.height != src.height ? weights(src.height, stored.height, []) : nil
        switch (wx, wy) {
        case (let wx?, let wy?) where stored.height < src.height:
            // Shrinking rows: vertical first (vectorised, over the wide rows), so the per-pixel
            // horizontal pass runs on the fewer output rows.
            let samples = src.width * channels
            let tmp = intermediate.pointer(count: samples * stored.height)
            ResamplePasses.vertical(
                src.base, stride: src.stride, width: src.width, weights: wy, channels: channels,
                accumulator: accumulator.pointer(count: samples), into: tmp,
                PixelMapping(channels: channels, stride: samples))
            ResamplePasses.horizontal(
                UnsafePointer(tmp), stride: samples, rows: stored.height, weights: wx,
                channels: channels, floats: floats(wx, channels), into: dst, final)
        case (let wx?, let wy?):
            // Growing rows: horizontal first, on the fewer source rows.
            let samples = stored.width * channels
            let tmp = intermediate.pointer(count: samples * src.height)
            ResamplePasses.horizontal(
                src.base, stride: src.stride, rows: src.height, weights: wx, channels: channels,
                floats: floats(wx, channels), into: tmp, PixelMapping(channels: channels, stride: samples))
            ResamplePasses.vertical(
                UnsafePointer(tmp), stride: samples, width: stored.width, weights: wy, channels: channels,
                accumulator: accumulator.pointer(count: samples), into: dst, final)
        case (let wx?, nil):
            ResamplePasses.horizontal(
                src.base, stride: src.stride, rows: src.height, weights: wx, channels: channels,
                floats: floats(wx, channels), into: dst, final)
        case (nil, let wy?):
            ResamplePasses.vertical(
                src.base, stride: src.stride, width: src.width, weights: wy, channels: channels,
                accumulator: accumulator.pointer(count: src.width * channels), into: dst, final)
        case (nil, nil):
            // Only reachable after a box reduce that landed exactly on the target: copy through the mapping.
            for y in 0..<src.height {
                for x in 0..<src.width {
                    let d = dst + (final.origin + y * final.rowStep + x * final.columnStep)
                    for c in 0..<channels { d[c] = src.base[y * src.stride + x * channels + c] }
                }
            }
        }
    }

    /// Row scratch for the horizontal pass over `weights`.
    private func floats(_ weights: ResampleWeights, _ channels: Int) -> UnsafeMutablePointer<Float> {
        floatRow.pointer(count: ResamplePasses.rowFloats(weights, channels: channels))
    }

    /// The cached weight table for one axis, with `layouts`.
    private func weights(_ source: Int, _ destination: Int, _ layouts: ResampleWeights.Layouts) -> ResampleWeights {
        weightCache.weights(source, destination, for: layouts)
    }
}

@available(*, unavailable, message: "a Resizer reuses scratch buffers; keep one per thread")
extension Resizer: Sendable {}
