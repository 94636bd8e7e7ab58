/// The two separable resampling passes. Both write through a `PixelMapping` (in elements of
/// the output), so whichever pass runs last also applies the orientation.
///
///     ResamplePasses.horizontal(src, stride: s, rows: h, weights: wx, channels: 3, into: tmp, map)
///
/// Inner loops use Int32 fixed point (weights sum to 1 << 14) over raw pointers; the channel
/// count is a compile-time constant in each specialisation and the sample types are generic
/// parameters the optimiser specialises.
enum ResamplePasses {
    /// Resamples each of `rows` 8-bit rows from `weights.source` to `weights.destination` pixels.
    static func horizontal<Output: ResampleSample>(
        _ src: UnsafePointer<UInt8>, stride: Int, rows: Int, weights: ResampleWeights, channels: Int,
        into dst: UnsafeMutablePointer<Output>, _ map: PixelMapping
    ) {
        weights.starts.withUnsafeBufferPointer { starts in
            weights.weights.withUnsafeBufferPointer { w in
                let s = starts.baseAddress!, wp = w.baseAddress!
                switch channels {
                case 1: horizontal(src, stride, rows, s, wp, weights.taps, weights.destination, dst, map, channels: 1)
                case 3: horizontal(src, stride, rows, s, wp, weights.taps, weights.destination, dst, map, channels: 3)
                default: horizontal(src, stride, rows, s, wp, weights.taps, weights.destination, dst, map, channels: 4)
                }
            }
        }
    }

    @inline(__always)
    private static func horizontal<Output: ResampleSample>(
        _ src: UnsafePointer<UInt8>, _ stride: Int, _ rows: Int,
        _ starts: UnsafePointer<Int>, _ weights: UnsafePointer<Int32>, _ taps: Int, _ width: Int,
        _ dst: UnsafeMutablePointer<Output>, _ map: PixelMapping, channels: Int
    ) {
        let r = Output.rounding
        for y in 0..<rows {
            let row = src + y &* stride
            var d = dst + (map.origin &+ y &* map.rowStep)
            for i in 0..<width {
                let p = row + starts[i] &* channels
                let w = weights + i &* taps
                var a0 = r, a1 = r, a2 = r, a3 = r
                for k in 0..<taps {
                    let wk = w[k]
                    let q = p + k &* channels
                    a0 &+= Int32(q[0]) &* wk
                    if channels > 1 {
                        a1 &+= Int32(q[1]) &* wk
                        a2 &+= Int32(q[2]) &* wk
                    }
                    if channels > 3 { a3 &+= Int32(q[3]) &* wk }
                }
                d[0] = Output(fixedPoint: a0)
                if channels > 1 {
                    d[1] = Output(fixedPoint: a1)
                    d[2] = Output(fixedPoint: a2)
                }
                if channels > 3 { d[3] = Output(fixedPoint: a3) }
                d += map.columnStep
            }
        }
    }

    /// Resamples `width × channels`-sample columns from `weights.source` rows to
    /// `weights.destination` 8-bit rows, accumulating a whole output row at a time in
    /// `accumulator` (width × channels Int32s), then writing it through `map`.
    static func vertical<Input: ResampleSample>(
        _ src: UnsafePointer<Input>, stride: Int, width: Int, weights: ResampleWeights, channels: Int,
        accumulator: UnsafeMutablePointer<Int32>, into dst: UnsafeMutablePointer<UInt8>, _ map: PixelMapping
    ) {
        let rowSamples = width &* channels
        let taps = weights.taps
        let rounding = Int32(1) << (Int32(ResampleWeights.precision) + Input.fractionBits - 1)
        let shift = Int32(ResampleWeights.precision) + Input.fractionBits
        weights.starts.withUnsafeBufferPointer { starts in
            weights.weights.withUnsafeBufferPointer { w in
                for j in 0..<weights.destination {
                    accumulator.update(repeating: rounding, count: rowSamples)
                    let first = src + starts[j] &* stride
                    for k in 0..<taps {
                        let wk = w[j &* taps &+ k]
                        if wk == 0 { continue }
                        accumulate(first + k &* stride, wk, accumulator, rowSamples)
                    }
                    let d = dst + (map.origin &+ j &* map.rowStep)
                    switch channels {
                    case 1: writeRow(accumulator, width, shift, d, map.columnStep, channels: 1)
                    case 3: writeRow(accumulator, width, shift, d, map.columnStep, channels: 3)
                    default: writeRow(accumulator, width, shift, d, map.columnStep, channels: 4)
                    }
                }
            }
        }
    }

    /// acc[b] += row[b] · w across a row; a straight loop the compiler vectorises.
    @inline(__always)
    private static func accumulate<Input: ResampleSample>(
        _ row: UnsafePointer<Input>, _ w: Int32, _ acc: UnsafeMutablePointer<Int32>, _ count: Int
    ) {
        for b in 0..<count { acc[b] &+= row[b].widened &* w }
    }

    @inline(__always)
    private static func writeRow(
        _ acc: UnsafePointer<Int32>, _ width: Int, _ shift: Int32, _ dst: UnsafeMutablePointer<UInt8>, _ step: Int, channels: Int
    ) {
        if step == channels {
            for b in 0..<(width &* channels) { dst[b] = clamp(acc[b], shift) }
            return
        }
        var d = dst
        var a = acc
        for _ in 0..<width {
            for c in 0..<channels { d[c] = clamp(a[c], shift) }
            d += step
            a += channels
        }
    }

    /// (v >> shift) clamped to 0...255.
    @inline(__always)
    static func clamp(_ v: Int32, _ shift: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: min(max(v >> shift, 0), 255))
    }
}
