import ImageCodecs

/// A separable Lanczos3 resizer with the orientation fused into its last pass.
///
///     let resizer = Resizer()   // one per worker thread
///     let box = FitBox.fit(Size(width: 480, height: 720), in: Size(width: 256, height: 256))
///     let thumb = resizer.resize(decoded, to: box, orientation: .right)
///
/// The two passes meet in a 16-bit intermediate (6 fraction bits, overshoot kept). When rows
/// shrink the vertical pass runs first, otherwise the horizontal one, so the scalar horizontal
/// pass always runs over the fewer rows; an axis whose size does not change is skipped. RGBA with any
/// non-opaque pixel is resampled premultiplied, so transparent colour never bleeds.
///
/// An instance owns its weight tables and scratch buffers and reuses them across calls, so it
/// is **not thread-safe**: the pipeline keeps one per worker thread.
public final class Resizer {
    private struct AxisKey: Hashable {
        var source: Int
        var destination: Int
    }

    /// Weight tables are tiny; the cache is simply emptied when it passes this many entries.
    private static let cacheLimit = 64
    private var weightCache: [AxisKey: ResampleWeights] = [:]
    private let premultiplied = ScratchBuffer<UInt8>()
    private let intermediate = ScratchBuffer<Int16>()
    private let accumulator = ScratchBuffer<Int32>()

    public init() {}

    /// `image` resampled and turned upright.
    ///
    /// - Parameters:
    ///   - size: the final, **upright** output size. With an orientation that swaps dimensions
    ///     (5...8) the stored image is resampled to `size.height × size.width` first.
    ///   - orientation: how `image` is stored, usually from `ExifOrientation.read(jpeg:)`.
    /// - Returns: a packed buffer of `size` in the input's layout.
    /// - Complexity: O(output width × input height × horizontal taps + output pixels × vertical
    ///   taps); taps grow with the reduction factor (about 6 × factor).
    ///
    /// `size` must be positive and `image` non-empty (programmer errors otherwise).
    public func resize(_ image: PixelBuffer, to size: Size, orientation: Orientation = .up) -> PixelBuffer {
        precondition(size.width > 0 && size.height > 0, "resize target must be positive, got \(size)")
        precondition(image.width > 0 && image.height > 0, "cannot resize an empty image")
        let stored = orientation.swapsDimensions ? Size(width: size.height, height: size.width) : size
        let resizesX = stored.width != image.width
        let resizesY = stored.height != image.height
        if !resizesX && !resizesY { return orientation.apply(to: image) }

        let channels = image.layout.channels
        var out = PixelBuffer(width: size.width, height: size.height, layout: image.layout)
        let final = PixelMapping(orientation, storedWidth: stored.width, storedHeight: stored.height,
                                 channels: channels, uprightStride: out.stride)
        let wx = resizesX ? weights(image.width, stored.width) : nil
        let wy = resizesY ? weights(image.height, stored.height) : nil

        image.withUnsafeBytes { raw in
            out.withUnsafeMutableBytes { outBytes in
                let dst = outBytes.baseAddress!
                var src = raw.baseAddress!
                var srcStride = image.stride
                var isPremultiplied = false
                if image.layout == .rgba, !Premultiply.isOpaque(src, width: image.width, height: image.height, stride: srcStride) {
                    let p = premultiplied.pointer(count: image.pixelCount * 4)
                    Premultiply.premultiply(src, width: image.width, height: image.height, stride: srcStride, into: p)
                    src = UnsafePointer(p)
                    srcStride = image.width * 4
                    isPremultiplied = true
                }
                switch (wx, wy) {
                case (let wx?, let wy?) where stored.height < image.height:
                    // Shrinking rows: vertical first (vectorised, over the wide rows), so the
                    // scalar horizontal pass runs on the fewer output rows.
                    let samples = image.width * channels
                    let tmp = intermediate.pointer(count: samples * stored.height)
                    ResamplePasses.vertical(src, stride: srcStride, width: image.width, weights: wy, channels: channels,
                                            accumulator: accumulator.pointer(count: samples), into: tmp,
                                            PixelMapping(channels: channels, stride: samples))
                    ResamplePasses.horizontal(UnsafePointer(tmp), stride: samples, rows: stored.height, weights: wx,
                                              channels: channels, into: dst, final)
                case (let wx?, let wy?):
                    // Growing rows: horizontal first, on the fewer source rows.
                    let samples = stored.width * channels
                    let tmp = intermediate.pointer(count: samples * image.height)
                    ResamplePasses.horizontal(src, stride: srcStride, rows: image.height, weights: wx, channels: channels,
                                              into: tmp, PixelMapping(channels: channels, stride: samples))
                    ResamplePasses.vertical(UnsafePointer(tmp), stride: samples, width: stored.width, weights: wy, channels: channels,
                                            accumulator: accumulator.pointer(count: samples), into: dst, final)
                case (let wx?, nil):
                    ResamplePasses.horizontal(src, stride: srcStride, rows: image.height, weights: wx, channels: channels,
                                              into: dst, final)
                case (nil, let wy?):
                    ResamplePasses.vertical(src, stride: srcStride, width: stored.width, weights: wy, channels: channels,
                                            accumulator: accumulator.pointer(count: stored.width * channels), into: dst, final)
                case (nil, nil):
                    preconditionFailure("handled above")
                }
                if isPremultiplied { Premultiply.unpremultiply(dst, count: size.width * size.height) }
            }
        }
        return out
    }

    /// The cached weight table for one axis.
    private func weights(_ source: Int, _ destination: Int) -> ResampleWeights {
        let key = AxisKey(source: source, destination: destination)
        if let cached = weightCache[key] { return cached }
        if weightCache.count >= Self.cacheLimit { weightCache.removeAll(keepingCapacity: true) }
        let table = ResampleWeights(source: source, destination: destination)
        weightCache[key] = table
        return table
    }
}

@available(*, unavailable, message: "a Resizer reuses scratch buffers; keep one per thread")
extension Resizer: Sendable {}
