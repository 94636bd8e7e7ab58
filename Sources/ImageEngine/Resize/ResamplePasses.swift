/// The two separable resampling passes. Both write through a `PixelMapping` (in elements of
/// the output), so whichever pass runs last also applies the orientation.
///
///     ResamplePasses.vertical(src, stride: s, width: w, weights: wy, channels: 3,
///                             accumulator: acc, into: tmp, PixelMapping(channels: 3, stride: w * 3))
///
/// Inner loops use Int32 fixed point (weights sum to 1 << 14) over raw pointers; the channel
/// count is a compile-time constant in each specialisation and the sample types are generic
/// parameters the optimiser specialises. The vertical pass runs along whole rows and
/// vectorises; the horizontal one is scalar per pixel, so the resizer runs it on the fewer rows.
enum ResamplePasses {
    /// Resamples each of `rows` rows from `weights.source` to `weights.destination` pixels.
    static func horizontal<Input: ResampleSample, Output: ResampleSample>(
        _ src: UnsafePointer<Input>, stride: Int, rows: Int, weights: ResampleWeights, channels: Int,
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
    private static func horizontal<Input: ResampleSample, Output: ResampleSample>(
        _ src: UnsafePointer<Input>, _ stride: Int, _ rows: Int,
        _ starts: UnsafePointer<Int>, _ weights: UnsafePointer<Int32>, _ taps: Int, _ width: Int,
        _ dst: UnsafeMutablePointer<Output>, _ map: PixelMapping, channels: Int
    ) {
        let shift = ResampleWeights.shift(from: Input.self, to: Output.self)
        let r = Int32(1) << (shift - 1)
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
                    a0 &+= q[0].widened &* wk
                    if channels > 1 {
                        a1 &+= q[1].widened &* wk
                        a2 &+= q[2].widened &* wk
                    }
                    if channels > 3 { a3 &+= q[3].widened &* wk }
                }
                d[0] = Output(clampingShifted: a0 >> shift)
                if channels > 1 {
                    d[1] = Output(clampingShifted: a1 >> shift)
                    d[2] = Output(clampingShifted: a2 >> shift)
                }
                if channels > 3 { d[3] = Output(clampingShifted: a3 >> shift) }
                d += map.columnStep
            }
        }
    }

    /// Resamples `width × channels`-sample columns from `weights.source` rows to
    /// `weights.destination` rows, accumulating a whole output row at a time in `accumulator`
    /// (width × channels Int32s), then writing it through `map`.
    static func vertical<Input: ResampleSample, Output: ResampleSample>(
        _ src: UnsafePointer<Input>, stride: Int, width: Int, weights: ResampleWeights, channels: Int,
        accumulator: UnsafeMutablePointer<Int32>, into dst: UnsafeMutablePointer<Output>, _ map: PixelMapping
    ) {
        let rowSamples = width &* channels
        let taps = weights.taps
        let shift = ResampleWeights.shift(from: Input.self, to: Output.self)
        let rounding = Int32(1) << (shift - 1)
        weights.starts.withUnsafeBufferPointer { starts in
            weights.weights.withUnsafeBufferPointer { w in
                for j in 0..<weights.destination {
                    accumulator.update(repeating: rounding, count: rowSamples)
                    let first = src + starts[j] &* stride
                    let wj = w.baseAddress! + j &* taps
                    var k = 0
                    // Two taps per sweep halves the accumulator traffic.
                    while k &+ 1 < taps {
                        accumulate(
                            first + k &* stride, wj[k], first + (k &+ 1) &* stride, wj[k &+ 1], accumulator, rowSamples)
                        k &+= 2
                    }
                    if k < taps { accumulate(first + k &* stride, wj[k], accumulator, rowSamples) }
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

    /// acc[b] += row[b] · w across a row; a straight loop the compiler vectorises. (Weights and
    /// samples both fit 16 bits; on the baseline x86-64 target the multiply still runs as 32-bit.)
    @inline(__always)
    private static func accumulate<Input: ResampleSample>(
        _ row: UnsafePointer<Input>, _ w: Int32, _ acc: UnsafeMutablePointer<Int32>, _ count: Int
    ) {
        let w = Int32(Int16(truncatingIfNeeded: w))
        for b in 0..<count { acc[b] &+= row[b].widened &* w }
    }

    /// acc[b] += r0[b] · w0 + r1[b] · w1.
    @inline(__always)
    private static func accumulate<Input: ResampleSample>(
        _ r0: UnsafePointer<Input>, _ w0: Int32, _ r1: UnsafePointer<Input>, _ w1: Int32,
        _ acc: UnsafeMutablePointer<Int32>, _ count: Int
    ) {
        let w0 = Int32(Int16(truncatingIfNeeded: w0)), w1 = Int32(Int16(truncatingIfNeeded: w1))
        for b in 0..<count { acc[b] &+= r0[b].widened &* w0 &+ r1[b].widened &* w1 }
    }

    @inline(__always)
    private static func writeRow<Output: ResampleSample>(
        _ acc: UnsafePointer<Int32>, _ width: Int, _ shift: Int32, _ dst: UnsafeMutablePointer<Output>, _ step: Int,
        channels: Int
    ) {
        if step == channels {
            for b in 0..<(width &* channels) { dst[b] = Output(clampingShifted: acc[b] >> shift) }
            return
        }
        var d = dst
        var a = acc
        for _ in 0..<width {
            for c in 0..<channels { d[c] = Output(clampingShifted: a[c] >> shift) }
            d += step
            a += channels
        }
    }
}
