import MediaTypes
import ImageCodecs

/// The Lanczos3 resizer over a stream of rows: pulls rows from an `ImageRowSource` and writes
/// the resized, upright image into an output-sized buffer, holding a ring of rows, never the
/// source frame.
///
///     let resizer = RowResizer()   // one per worker thread
///     let out = try ImageCodecs.withRows(data, format: .jpeg, options: options) { rows in
///         try resizer.resize(rows, to: Size(width: 2048, height: 1365), orientation: .right)
///     }
///     out.pixels   // 2048×1365, upright
///     out.opaque   // false when any alpha byte the decoder handed out was below 255
///
/// The maths is `Resizer`'s, step for step, so the bits are the same as `Resizer.resize` on the
/// same decoded pixels: a streamed `BoxReduce` (sums of `fy` rows, then `fx`-wide blocks) when
/// an axis shrinks 4× or more, then the two `ResamplePasses` one row at a time.
/// - Rows shrink: a ring of `taps` (box-reduced) 8-bit rows feeds the vertical taps of one
///   output row into a 16-bit row, whose horizontal pass writes through the `PixelMapping`.
///   Output rows go in twos (`verticalBytes` in fixed point where the table `fitsInt16`, else
///   `verticalRowPair` where the Float sums are exact), so the ring holds `taps + maxStep` rows
///   and each is read about half as often.
/// - Rows grow: each incoming row is resampled horizontally into a ring of `taps` 16-bit
///   rows; the vertical pass writes each output row through the mapping.
/// - One axis only, box reduce alone, or no resize (orientation or a plain copy): one row
///   at a time, straight through the mapping.
///
/// RGBA is always resampled premultiplied: `Resizer` premultiplies when any pixel is
/// translucent, which a stream cannot know up front, and a pixel of alpha 255 premultiplies
/// and unpremultiplies to itself, so the two agree on every image. The rows are scanned for
/// alpha as they pass, which also gives `opaque`. Transposing orientations (5–8) need the whole
/// output, which is held anyway: stored row `j` lands in upright column `j`.
///
/// An instance owns its weight tables and scratch buffers (the ring and a few rows, reused
/// across images), so it is **not thread-safe**.
package final class RowResizer {
    /// The resized image and what the rows said about alpha.
    package struct Output {
        /// Upright, of the requested size, in the source's layout (straight alpha).
        package var pixels: PixelBuffer
        /// True for gray and RGB, and for RGBA whose every alpha byte (all source rows, not
        /// only those the output needed) was 255.
        package var opaque: Bool
    }

    let weightCache = ResampleWeightCache()
    let sourceRow = ScratchBuffer<UInt8>()
    let sums = ScratchBuffer<UInt32>()
    let planeRow = ScratchBuffer<UInt8>()
    let ring8 = ScratchBuffer<UInt8>()
    let ring16 = ScratchBuffer<Int16>()
    let row16 = ScratchBuffer<Int16>()
    let accumulator = ScratchBuffer<Float>()
    let floatRow = ScratchBuffer<Float>()

    package init() {}

    /// Every row of `source`, resampled to `size` and turned upright.
    ///
    /// - Parameters:
    ///   - size: the final, **upright** size; with an orientation that swaps dimensions (5...8)
    ///     the stored rows are resampled to `size.height × size.width`.
    ///   - orientation: how the source is stored.
    /// - Returns: the output; every source row has been read (so `source.damage` is complete).
    /// - Throws: the source's `CodecError`, or `.corrupt` when it ends before its last row.
    /// - Complexity: O(source pixels) to read, box and scan the rows, plus O(output width ×
    ///   rows × taps) for Lanczos3. Memory: the output, `taps` rows in the ring and a few rows.
    package func resize(_ source: any ImageRowSource, to size: Size, orientation: Orientation = .up)
        throws(CodecError) -> Output
    {
        precondition(size.width > 0 && size.height > 0, "resize target must be positive, got \(size)")
        guard source.width > 0, source.height > 0 else {
            throw .invalidDimensions(width: source.width, height: source.height)
        }
        let stored = orientation.swapsDimensions ? Size(width: size.height, height: size.width) : size
        let resamples = stored.width != source.width || stored.height != source.height
        let channels = source.layout.channels
        var feed = RowFeed(
            source, fx: resamples ? BoxReduce.factor(source: source.width, destination: stored.width) : 1,
            fy: resamples ? BoxReduce.factor(source: source.height, destination: stored.height) : 1,
            premultiplies: resamples, rowBuffer: sourceRow.pointer(count: source.width * channels),
            sums: sums.pointer(count: source.width * channels))
        var out = PixelBuffer(width: size.width, height: size.height, layout: source.layout)
        let map = PixelMapping(
            orientation, storedWidth: stored.width, storedHeight: stored.height, channels: channels,
            uprightStride: out.stride)
        let wx =
            stored.width != feed.planeWidth
            ? weightCache.weights(feed.planeWidth, stored.width, for: .horizontal(channels: channels)) : nil
        let wy = stored.height != feed.planeHeight ? weightCache.weights(feed.planeHeight, stored.height, for: []) : nil

        var failure: CodecError?
        out.withUnsafeMutableBytes { bytes in
            let dst = bytes.baseAddress!
            do throws(CodecError) {
                switch (wx, wy) {
                case (let wx?, let wy?) where stored.height < feed.planeHeight:
                    try verticalFirst(&feed, wy, then: wx, into: dst, map)
                case (let wx?, let wy?):
                    try horizontalFirst(&feed, wx, then: wy, into: dst, map)
                case (let wx?, nil):
                    try horizontalOnly(&feed, wx, into: dst, map)
                case (nil, let wy?):
                    try verticalFirst(&feed, wy, then: nil, into: dst, map)
                case (nil, nil):
                    try copy(&feed, into: dst, map, direct: orientation == .up)
                }
                try feed.drain()
            } catch {
                failure = error
            }
            if feed.premultiplies && !feed.opaque { Premultiply.unpremultiply(dst, count: size.width * size.height) }
        }
        if let failure { throw failure }
        return Output(pixels: out, opaque: feed.opaque)
    }
}

@available(*, unavailable, message: "a RowResizer reuses scratch buffers; keep one per thread")
extension RowResizer: Sendable {}
