/// The two separable resampling passes. Both write through a `PixelMapping` (in elements of
/// the output), so whichever pass runs last also applies the orientation.
///
///     ResamplePasses.vertical(src, stride: s, width: w, weights: wy, channels: 3,
///                             accumulator: acc, into: tmp, PixelMapping(channels: 3, stride: w * 3))
///
/// Where a table `fitsInt16` (every Lanczos3 table), the two passes of a shrink run in Int32
/// fixed point on SSE2's `pmaddwd`, two taps per multiply-add: 8-bit rows into the 16-bit
/// intermediate (`verticalBytes`, the same bits as the Float pass) and the intermediate into
/// RGB(A) bytes (`horizontalIntermediate`, exact sums: within a level of the Float pass). The
/// other passes accumulate in Float (the 14-bit weights are exact in Float; see `vertical`),
/// the greyscale horizontal pass in Int32 per sample (weights sum to 1 << 14), over raw
/// pointers; the channel count is a compile-time constant in each specialisation and the
/// sample types are generic parameters the optimiser specialises. The vertical pass runs
/// along whole rows and vectorises; the horizontal one works a pixel at a time (SIMD4 lanes
/// for RGB(A)), so the resizer runs it on the fewer rows.
enum ResamplePasses {
    /// Whether tables that `fitsInt16` go to the fixed-point kernels. Not in a debug build:
    /// unoptimised, their SIMD code is generic calls per lane and runs at half the Float
    /// passes' speed, which doubled the debug tests that resize large frames and starved the
    /// test run's cooperative threads. The kernels' own tests call them directly.
    #if DEBUG
        static let dispatchesFixedPoint = false
    #else
        static let dispatchesFixedPoint = true
    #endif

    /// Resamples each of `rows` rows from `weights.source` to `weights.destination` pixels.
    /// `floats` is scratch for two source rows as Float: at least `rowFloats(weights, channels)`.
    static func horizontal<Input: ResampleSample, Output: ResampleSample>(
        _ src: UnsafePointer<Input>, stride: Int, rows: Int, weights: ResampleWeights, channels: Int,
        floats: UnsafeMutablePointer<Float>, into dst: UnsafeMutablePointer<Output>, _ map: PixelMapping
    ) {
        precondition(
            weights.layouts.contains(.horizontal(channels: channels)),
            "a weight table built without the layout of a horizontal pass over \(channels) channel(s)")
        weights.starts.withUnsafeBufferPointer { starts in
            let s = starts.baseAddress!
            if channels == 1, weights.fixedPoint, Input.self == Int16.self, Output.self == UInt8.self {
                horizontalGrayIntermediate(
                    UnsafeRawPointer(src).assumingMemoryBound(to: Int16.self), stride: stride, rows: rows,
                    weights: weights, into: UnsafeMutableRawPointer(dst).assumingMemoryBound(to: UInt8.self), map)
                return
            }
            if channels == 1 {
                weights.weights.withUnsafeBufferPointer { w in
                    horizontalGray(src, stride, rows, s, w.baseAddress!, weights.taps, weights.destination, dst, map)
                }
                return
            }
            if weights.fixedPoint, Input.self == Int16.self, Output.self == UInt8.self {
                horizontalIntermediate(
                    UnsafeRawPointer(src).assumingMemoryBound(to: Int16.self), stride: stride, rows: rows,
                    weights: weights, channels: channels,
                    into: UnsafeMutableRawPointer(dst).assumingMemoryBound(to: UInt8.self), map)
                return
            }
            weights.splatWeights.withUnsafeBufferPointer { w in
                let wp = w.baseAddress!
                // Loads past a row's end (the 4th lane of the last RGB pixel) read these zeros,
                // after each of the two rows.
                let samples = weights.source &* channels
                floats.advanced(by: samples).update(repeating: 0, count: rowPadding)
                floats.advanced(by: 2 &* samples &+ rowPadding).update(repeating: 0, count: rowPadding)
                if channels == 3 {
                    horizontalPixels(
                        src, stride, rows, samples, s, wp, weights.taps, weights.destination, floats, dst, map,
                        channels: 3)
                } else {
                    horizontalPixels(
                        src, stride, rows, samples, s, wp, weights.taps, weights.destination, floats, dst, map,
                        channels: 4)
                }
            }
        }
    }

    /// Zeros after a Float row, for the 4-lane load of the last RGB pixel (one Float past the
    /// row). 8 keeps each row's start 16-byte aligned when the row's own length is.
    private static let rowPadding = 8

    /// Float scratch `horizontal` needs for `weights`' source rows: two rows (rows go in twos).
    static func rowFloats(_ weights: ResampleWeights, channels: Int) -> Int {
        2 &* (weights.source &* channels &+ rowPadding)
    }

    /// RGB(A): one pixel per `SIMD4<Float>` (SSE2 mulps/addps on the baseline target, where
    /// 4 × Int32 multiplies need SSE4.1). Each row is widened to Float once, then every tap is
    /// a load, a multiply by the splatted weight and an add. Rows go in twos where there are two:
    /// both rows' taps of one output pixel share its weights, so each weight is loaded once for
    /// two pixels (the loads, not the arithmetic, bound this loop: 2 per tap alone, 1.5 in twos).
    /// Each row's sums are added in the same order either way, so the bits do not change.
    /// Rounding to nearest through the 1.5 · 2^23 trick; the Float sum of at most a few dozen
    /// 14-bit-weighted 16-bit samples stays well inside the 24-bit significand, so results
    /// match the integer pass to ±1 of the last intermediate fraction bit.
    @inline(__always)
    private static func horizontalPixels<Input: ResampleSample, Output: ResampleSample>(
        _ src: UnsafePointer<Input>, _ stride: Int, _ rows: Int, _ samples: Int,
        _ starts: UnsafePointer<Int>, _ weights: UnsafePointer<SIMD4<Float>>, _ taps: Int, _ width: Int,
        _ row: UnsafeMutablePointer<Float>, _ dst: UnsafeMutablePointer<Output>, _ map: PixelMapping, channels: Int
    ) {
        let gain = ResampleWeights.gain(from: Input.self, to: Output.self)
        let second = row + (samples &+ rowPadding)  // the second row's Floats, when there is one
        var y = 0
        while y < rows {
            let s = src + y &* stride
            for b in 0..<samples { row[b] = Float(s[b].widened) }
            let d = dst + (map.origin &+ y &* map.rowStep)
            if y &+ 1 < rows {
                let t = s + stride
                for b in 0..<samples { second[b] = Float(t[b].widened) }
                pixelPairs(row, second, starts, weights, taps, width, d, d + map.rowStep, map.columnStep, gain, channels)
                y &+= 2
            } else {
                pixels(row, starts, weights, taps, width, d, map.columnStep, gain, channels)
                y &+= 1
            }
        }
    }

    /// One row of Floats resampled into `width` pixels from `d`, a pixel every `step` elements.
    /// `taps` is the table's own count; `weights` holds `taps` rounded up to even per pixel.
    @inline(__always)
    private static func pixels<Output: ResampleSample>(
        _ row: UnsafeMutablePointer<Float>, _ starts: UnsafePointer<Int>, _ weights: UnsafePointer<SIMD4<Float>>,
        _ taps: Int, _ width: Int, _ dst: UnsafeMutablePointer<Output>, _ step: Int, _ gain: Float, _ channels: Int
    ) {
        let raw = UnsafeRawPointer(row)
        let pair = 2 &* channels &* 4  // bytes between the pixels of one tap pair's first taps
        var d = dst
        var w = weights
        for i in 0..<width {
            var p = raw + (starts[i] &* channels) &* 4
            var a0 = SIMD4<Float>(), a1 = SIMD4<Float>()
            // Two taps per step; an odd last tap alone (its zero-weight pad skipped: adding
            // 0 · x to `a1` never changed a bit).
            for _ in 0..<(taps &>> 1) {
                a0 += p.loadUnaligned(as: SIMD4<Float>.self) * w[0]
                a1 += p.loadUnaligned(fromByteOffset: channels &* 4, as: SIMD4<Float>.self) * w[1]
                p += pair
                w += 2
            }
            if taps & 1 != 0 {
                a0 += p.loadUnaligned(as: SIMD4<Float>.self) * w[0]
                w += 2
            }
            store(a0 + a1, gain, d, channels)
            d += step
        }
    }

    /// Two rows of Floats (`row`, `next`) resampled into `width` pixels each, from `d0` and `d1`.
    /// `taps` is the table's own count; `weights` holds `taps` rounded up to even per pixel.
    @inline(__always)
    private static func pixelPairs<Output: ResampleSample>(
        _ row: UnsafeMutablePointer<Float>, _ next: UnsafeMutablePointer<Float>, _ starts: UnsafePointer<Int>,
        _ weights: UnsafePointer<SIMD4<Float>>, _ taps: Int, _ width: Int, _ d0: UnsafeMutablePointer<Output>,
        _ d1: UnsafeMutablePointer<Output>, _ step: Int, _ gain: Float, _ channels: Int
    ) {
        let raw = UnsafeRawPointer(row)
        let apart = UnsafeRawPointer(next) - raw  // bytes from a Float of `row` to the same one of `next`
        let pair = 2 &* channels &* 4
        var (e0, e1) = (d0, d1)
        var w = weights
        for i in 0..<width {
            var p = raw + (starts[i] &* channels) &* 4
            var a0 = SIMD4<Float>(), a1 = SIMD4<Float>(), b0 = SIMD4<Float>(), b1 = SIMD4<Float>()
            for _ in 0..<(taps &>> 1) {
                let w0 = w[0], w1 = w[1]
                a0 += p.loadUnaligned(as: SIMD4<Float>.self) * w0
                a1 += p.loadUnaligned(fromByteOffset: channels &* 4, as: SIMD4<Float>.self) * w1
                b0 += p.loadUnaligned(fromByteOffset: apart, as: SIMD4<Float>.self) * w0
                b1 += p.loadUnaligned(fromByteOffset: apart &+ channels &* 4, as: SIMD4<Float>.self) * w1
                p += pair
                w += 2
            }
            if taps & 1 != 0 {
                let w0 = w[0]
                a0 += p.loadUnaligned(as: SIMD4<Float>.self) * w0
                b0 += p.loadUnaligned(fromByteOffset: apart, as: SIMD4<Float>.self) * w0
                w += 2
            }
            store(a0 + a1, gain, e0, channels)
            store(b0 + b1, gain, e1, channels)
            e0 += step
            e1 += step
        }
    }

    /// One pixel's sum times `gain`, rounded with the magic add (|sum| stays far below 2^22) and
    /// clamped per lane: a Float clamp of 4 lanes of which 3 are stored compiles to branchy
    /// scalar code.
    @inline(__always)
    private static func store<Output: ResampleSample>(
        _ sum: SIMD4<Float>, _ gain: Float, _ d: UnsafeMutablePointer<Output>, _ channels: Int
    ) {
        let magic = SIMD4<Float>(repeating: 12_582_912)  // 1.5 · 2^23: adding it rounds to an integer
        let n = unsafeBitCast(sum * gain + magic, to: SIMD4<Int32>.self) &- SIMD4<Int32>(repeating: 0x4B40_0000)
        d[0] = Output(clampingShifted: n[0])
        d[1] = Output(clampingShifted: n[1])
        d[2] = Output(clampingShifted: n[2])
        if channels > 3 { d[3] = Output(clampingShifted: n[3]) }
    }

    /// Greyscale: Int32 fixed point, scalar per pixel.
    @inline(__always)
    private static func horizontalGray<Input: ResampleSample, Output: ResampleSample>(
        _ src: UnsafePointer<Input>, _ stride: Int, _ rows: Int,
        _ starts: UnsafePointer<Int>, _ weights: UnsafePointer<Int32>, _ taps: Int, _ width: Int,
        _ dst: UnsafeMutablePointer<Output>, _ map: PixelMapping
    ) {
        let shift = ResampleWeights.shift(from: Input.self, to: Output.self)
        let r = Int32(1) << (shift - 1)
        for y in 0..<rows {
            let row = src + y &* stride
            var d = dst + (map.origin &+ y &* map.rowStep)
            for i in 0..<width {
                let p = row + starts[i]
                let w = weights + i &* taps
                var a = r
                for k in 0..<taps { a &+= p[k].widened &* w[k] }
                d[0] = Output(clampingShifted: a >> shift)
                d += map.columnStep
            }
        }
    }

    /// Resamples `width × channels`-sample columns from `weights.source` rows to
    /// `weights.destination` rows, accumulating a whole output row at a time in `accumulator`
    /// (width × channels Floats), then writing it through `map`.
    ///
    /// Bytes into the packed 16-bit intermediate with a table that `fitsInt16` go to
    /// `verticalBytes` (Int16 × Int16 pairs on `pmaddwd`, the same bits). Everything else runs
    /// in Float, not a per-sample Int32: the baseline x86-64 target has no 4 × Int32 multiply
    /// (SSE4.1), so that loop cost three times the instructions of cvtdq2ps + mulps + addps.
    static func vertical<Input: ResampleSample, Output: ResampleSample>(
        _ src: UnsafePointer<Input>, stride: Int, width: Int, weights: ResampleWeights, channels: Int,
        accumulator: UnsafeMutablePointer<Float>, into dst: UnsafeMutablePointer<Output>, _ map: PixelMapping
    ) {
        let taps = weights.taps
        if weights.fixedPoint, Input.self == UInt8.self, Output.self == Int16.self, map.columnStep == channels {
            verticalBytes(
                UnsafeRawPointer(src).assumingMemoryBound(to: UInt8.self), stride: stride, width: width,
                weights: weights, channels: channels,
                into: UnsafeMutableRawPointer(dst).assumingMemoryBound(to: Int16.self), map)
            return
        }
        weights.starts.withUnsafeBufferPointer { starts in
            weights.unitWeights.withUnsafeBufferPointer { w in
                withUnsafeTemporaryAllocation(of: UnsafePointer<Input>.self, capacity: taps) { rows in
                    let r = rows.baseAddress!
                    for j in 0..<weights.destination {
                        let first = src + starts[j] &* stride
                        for k in 0..<taps { (r + k).initialize(to: first + k &* stride) }
                        verticalRow(
                            UnsafePointer(r), weights: w.baseAddress! + j &* taps, taps: taps, width: width,
                            channels: channels, accumulator: accumulator, into: dst + (map.origin &+ j &* map.rowStep),
                            columnStep: map.columnStep)
                    }
                }
            }
        }
    }

    /// One output row of the vertical pass: `rows[k]` (k < `taps`) are the source rows under
    /// its taps, `weights` its `taps` unit weights; the row is written from `dst`, a pixel every
    /// `columnStep` elements. `vertical` runs this for every output row; `RowResizer` runs it
    /// over a ring of rows, so both give the same bits.
    @inline(__always)
    static func verticalRow<Input: ResampleSample, Output: ResampleSample>(
        _ rows: UnsafePointer<UnsafePointer<Input>>, weights wj: UnsafePointer<Float>, taps: Int, width: Int,
        channels: Int, accumulator: UnsafeMutablePointer<Float>, into d: UnsafeMutablePointer<Output>, columnStep: Int
    ) {
        let rowSamples = width &* channels
        let gain = ResampleWeights.gain(from: Input.self, to: Output.self)
        sumTaps(rows, wj, taps: taps, into: accumulator, count: rowSamples)
        writeSums(accumulator, width: width, channels: channels, gain: gain, into: d, columnStep: columnStep)
    }

    /// A row of vertical sums (`width × channels` Floats) rounded to `Output`, times `gain`
    /// (`ResampleWeights.gain`), a pixel every `columnStep` elements from `d`.
    @inline(__always)
    static func writeSums<Output: ResampleSample>(
        _ acc: UnsafePointer<Float>, width: Int, channels: Int, gain: Float, into d: UnsafeMutablePointer<Output>,
        columnStep: Int
    ) {
        switch channels {
        case 1: writeRow(acc, width, gain, d, columnStep, channels: 1)
        case 3: writeRow(acc, width, gain, d, columnStep, channels: 3)
        default: writeRow(acc, width, gain, d, columnStep, channels: 4)
        }
    }

    /// Rounds a Float accumulator to the nearest `Output`, clamped to its range.
    @inline(__always)
    private static func writeRow<Output: ResampleSample>(
        _ acc: UnsafePointer<Float>, _ width: Int, _ gain: Float, _ dst: UnsafeMutablePointer<Output>, _ step: Int,
        channels: Int
    ) {
        if step == channels {
            for b in 0..<(width &* channels) { dst[b] = Output(rounding: acc[b] * gain) }
            return
        }
        var d = dst
        var a = acc
        for _ in 0..<width {
            for c in 0..<channels { d[c] = Output(rounding: a[c] * gain) }
            d += step
            a += channels
        }
    }
}
