extension ResamplePasses {
    /// One or two consecutive output rows of the vertical pass from 8-bit rows into the 16-bit
    /// intermediate, in Int32 fixed point: each pair of rows is zipped into Int16 lanes and
    /// multiplied by its pair of weights with SSE2's `pmaddwd` (8 products and 4 adds in one
    /// instruction), and each block of 16 columns keeps its sums in registers across all taps.
    ///
    ///     // rows: the step + taps ring rows from the first output's start
    ///     verticalBytes(rows, step: 1, w0, w0 + taps, taps: 8, samples: w * 3, into: tmp, next: tmp + w * 3)
    ///
    /// `rows[0 ..< taps]` are the first output's taps (unit weights `w0`); with `w1`,
    /// `rows[step ..< step + taps]` are the second's, written from `d1`. Only for a table with
    /// `fitsInt16`: every sum is then exact, and equal to the Float sum of `verticalRow` and
    /// `verticalRowPair` (also exact there), and the shift to 6 fraction bits rounds half to
    /// even as their Float rounding does, so the rows are bit for bit theirs, in about half
    /// the instructions.
    /// - Complexity: O(⌈(`step` + `taps`) / 2⌉ × `samples`) multiply-adds per output.
    static func verticalBytes(
        _ rows: UnsafePointer<UnsafePointer<UInt8>>, step: Int, _ w0: UnsafePointer<Float>, _ w1: UnsafePointer<Float>?,
        taps: Int, samples: Int, into d0: UnsafeMutablePointer<Int16>, next d1: UnsafeMutablePointer<Int16>?
    ) {
        let second = w1 != nil && d1 != nil
        let span = second ? step &+ taps : taps
        let pairs = (span &+ 1) &>> 1
        withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: 2 &* pairs) { r in
            // An odd span's pad row repeats the last row under zero weights.
            for k in 0..<(2 &* pairs) { r.initializeElement(at: k, to: rows[min(k, span &- 1)]) }
            withUnsafeTemporaryAllocation(of: SIMD8<Int16>.self, capacity: 2 &* pairs) { w in
                for p in 0..<pairs {
                    w.initializeElement(at: p, to: weightPair(w0, 2 &* p, taps: taps))
                    w.initializeElement(
                        at: pairs &+ p, to: second ? weightPair(w1!, 2 &* p &- step, taps: taps) : SIMD8())
                }
                let rp = UnsafePointer(r.baseAddress!), wp = UnsafePointer(w.baseAddress!)
                if second {
                    sumBytes(rp, pairs, wp, samples, d0, d1!, two: true)
                } else {
                    sumBytes(rp, pairs, wp, samples, d0, d0, two: false)
                }
            }
        }
    }

    /// `vertical` for a whole frame of bytes into a packed 16-bit intermediate (`map`'s pixels
    /// `channels` apart), output rows in twos: `verticalBytes` over the source rows in place.
    static func verticalBytes(
        _ src: UnsafePointer<UInt8>, stride: Int, width: Int, weights: ResampleWeights, channels: Int,
        into dst: UnsafeMutablePointer<Int16>, _ map: PixelMapping
    ) {
        let taps = weights.taps, samples = width &* channels, maxSpan = taps &+ weights.maxStep
        weights.unitWeights.withUnsafeBufferPointer { w in
            withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: maxSpan) { rows in
                let r = rows.baseAddress!
                var j = 0
                while j < weights.destination {
                    let first = weights.starts[j], two = j &+ 1 < weights.destination
                    let step = two ? weights.starts[j &+ 1] &- first : 0
                    for k in 0..<(step &+ taps) { (r + k).initialize(to: src + (first &+ k) &* stride) }
                    let w0 = w.baseAddress! + j &* taps, d = dst + (map.origin &+ j &* map.rowStep)
                    verticalBytes(
                        UnsafePointer(r), step: step, w0, two ? w0 + taps : nil, taps: taps, samples: samples,
                        into: d, next: two ? d + map.rowStep : nil)
                    j &+= two ? 2 : 1
                }
            }
        }
    }

    /// Taps `k` and `k + 1` of one output's unit weights as Int16 (exact: 14-bit numerators),
    /// repeated for the four column pairs of a `pmaddwd`; taps outside `0 ..< taps` weigh 0.
    @inline(__always)
    private static func weightPair(_ w: UnsafePointer<Float>, _ k: Int, taps: Int) -> SIMD8<Int16> {
        func at(_ i: Int) -> Int16 { i >= 0 && i < taps ? Int16(w[i] * Float(ResampleWeights.one)) : 0 }
        let a = at(k), b = at(k &+ 1)
        return SIMD8(a, b, a, b, a, b, a, b)
    }

    /// The multiply-adds of `verticalBytes`: 16 columns at a time while 16 remain (the sums of
    /// one output in 4 registers, of two in 8), then the last columns one at a time with the
    /// same integers. `w[p]` weighs row pair `p` for the first output, `w[pairs + p]` for the
    /// second.
    @inline(__always)
    private static func sumBytes(
        _ r: UnsafePointer<UnsafePointer<UInt8>>, _ pairs: Int, _ w: UnsafePointer<SIMD8<Int16>>, _ samples: Int,
        _ d0: UnsafeMutablePointer<Int16>, _ d1: UnsafeMutablePointer<Int16>, two: Bool
    ) {
        var b = 0
        while b &+ 16 <= samples {
            var a0 = SIMD4<Int32>(), a1 = a0, a2 = a0, a3 = a0, c0 = a0, c1 = a0, c2 = a0, c3 = a0
            for p in 0..<pairs {
                let x = UnsafeRawPointer(r[2 &* p] + b).loadUnaligned(as: SIMD16<UInt8>.self)
                let y = UnsafeRawPointer(r[2 &* p &+ 1] + b).loadUnaligned(as: SIMD16<UInt8>.self)
                let lo = zip(x.lowHalf, y.lowHalf), hi = zip(x.highHalf, y.highHalf)
                let l0 = SIMD8<Int16>(truncatingIfNeeded: lo.lowHalf), l1 = SIMD8<Int16>(truncatingIfNeeded: lo.highHalf)
                let h0 = SIMD8<Int16>(truncatingIfNeeded: hi.lowHalf), h1 = SIMD8<Int16>(truncatingIfNeeded: hi.highHalf)
                let u = w[p]
                a0 &+= multiplyAdd(l0, u)
                a1 &+= multiplyAdd(l1, u)
                a2 &+= multiplyAdd(h0, u)
                a3 &+= multiplyAdd(h1, u)
                if two {
                    let v = w[pairs &+ p]
                    c0 &+= multiplyAdd(l0, v)
                    c1 &+= multiplyAdd(l1, v)
                    c2 &+= multiplyAdd(h0, v)
                    c3 &+= multiplyAdd(h1, v)
                }
            }
            store(a0, a1, a2, a3, d0 + b)
            if two { store(c0, c1, c2, c3, d1 + b) }
            b &+= 16
        }
        while b < samples {
            var a: Int32 = 0, c: Int32 = 0
            for p in 0..<pairs {
                let x = Int32(r[2 &* p][b]), y = Int32(r[2 &* p &+ 1][b])
                a &+= x &* Int32(w[p][0]) &+ y &* Int32(w[p][1])
                if two { c &+= x &* Int32(w[pairs &+ p][0]) &+ y &* Int32(w[pairs &+ p][1]) }
            }
            d0[b] = Int16(truncatingIfNeeded: toIntermediate(SIMD4(repeating: a))[0])
            if two { d1[b] = Int16(truncatingIfNeeded: toIntermediate(SIMD4(repeating: c))[0]) }
            b &+= 1
        }
    }

    /// (x0, y0, x1, y1, …, x7, y7): one `punpcklbw`.
    @inline(__always)
    private static func zip(_ x: SIMD8<UInt8>, _ y: SIMD8<UInt8>) -> SIMD16<UInt8> {
        SIMD16(x[0], y[0], x[1], y[1], x[2], y[2], x[3], y[3], x[4], y[4], x[5], y[5], x[6], y[6], x[7], y[7])
    }

    /// a0·b0 + a1·b1, a2·b2 + a3·b3, …: the optimiser matches this to `pmaddwd`.
    @inline(__always)
    static func multiplyAdd(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD4<Int32> {
        let x = SIMD8<Int32>(truncatingIfNeeded: a) &* SIMD8<Int32>(truncatingIfNeeded: b)
        return x.evenHalf &+ x.oddHalf
    }

    /// Sums of 14-bit-weighted bytes to the intermediate's 6 fraction bits (a shift by 8),
    /// rounded half to even: the rounding of the Float passes' 1.5 · 2^23 add, so the bits
    /// are theirs. (s + 127 + bit 8 of s) >> 8 rounds a tie up exactly when s >> 8 is odd.
    @inline(__always)
    private static func toIntermediate(_ s: SIMD4<Int32>) -> SIMD4<Int32> {
        (s &+ 127 &+ ((s &>> 8) & 1)) &>> 8
    }

    /// 16 columns of sums, rounded, into `d` (`fitsInt16`: they need no clamp).
    @inline(__always)
    private static func store(
        _ s0: SIMD4<Int32>, _ s1: SIMD4<Int32>, _ s2: SIMD4<Int32>, _ s3: SIMD4<Int32>, _ d: UnsafeMutablePointer<Int16>
    ) {
        let lo = SIMD8<Int32>(lowHalf: toIntermediate(s0), highHalf: toIntermediate(s1))
        let hi = SIMD8<Int32>(lowHalf: toIntermediate(s2), highHalf: toIntermediate(s3))
        let packed = SIMD16<Int16>(
            lowHalf: SIMD8(truncatingIfNeeded: lo), highHalf: SIMD8(truncatingIfNeeded: hi))
        UnsafeMutableRawPointer(d).storeBytes(of: packed, as: SIMD16<Int16>.self)
    }
}

extension ResamplePasses {
    /// RGB(A) rows of the 16-bit intermediate resampled into bytes, in Int32 fixed point: for
    /// each tap pair, a pixel's 4 lanes and the next pixel's are zipped and multiplied by the
    /// pair's weights (`ResampleWeights.pairWeights`) in one `pmaddwd`. Rows go in twos, sharing
    /// each weight load, as the Float pass does; no row is widened to Float first.
    ///
    ///     horizontalIntermediate(tmp, stride: w * 3, rows: 2, weights: wx, channels: 3, into: out, map)
    ///
    /// For a table that `fitsInt16` (no sum can overflow). The sums are exact and rounded half
    /// up, as the greyscale pass rounds; the Float pass rounds a sum whose products of 16-bit
    /// samples by 14-bit weights are not all exact in a Float, so the two differ by one level
    /// where that sum lies within its error of a half.
    /// - Complexity: O(`rows` × `weights.destination` × `weights.evenTaps`).
    static func horizontalIntermediate(
        _ src: UnsafePointer<Int16>, stride: Int, rows: Int, weights: ResampleWeights, channels: Int,
        into dst: UnsafeMutablePointer<UInt8>, _ map: PixelMapping
    ) {
        let half = weights.evenTaps &>> 1
        // The pixels whose last 8-lane load ends inside the row; starts only grow, so the rest
        // are a suffix, resampled one sample at a time.
        var loaded = weights.destination
        while loaded > 0
            && (weights.starts[loaded &- 1] &+ 2 &* half &- 1) &* channels &+ 8 > weights.source &* channels
        {
            loaded &-= 1
        }
        weights.starts.withUnsafeBufferPointer { s in
            weights.pairWeights.withUnsafeBufferPointer { w in
                var y = 0
                while y < rows {
                    let a = src + y &* stride, d = dst + (map.origin &+ y &* map.rowStep)
                    let two = y &+ 1 < rows
                    if two {
                        intermediatePixels(
                            a, a + stride, s.baseAddress!, w.baseAddress!, half, loaded, last: weights.destination &- 1,
                            d, d + map.rowStep, map.columnStep, channels, two: true)
                    } else {
                        intermediatePixels(
                            a, a, s.baseAddress!, w.baseAddress!, half, loaded, last: weights.destination &- 1,
                            d, d, map.columnStep, channels, two: false)
                    }
                    for r in 0..<(two ? 2 : 1) {
                        intermediateTail(a + r &* stride, weights, loaded, d + r &* map.rowStep, map.columnStep, channels)
                    }
                    y &+= two ? 2 : 1
                }
            }
        }
    }

    /// Output pixels `0 ..< count` of row `a` (and of row `b` when `two`), a pixel every
    /// `step` bytes from `da` (and `db`); `last` is the row's last pixel.
    @inline(__always)
    private static func intermediatePixels(
        _ a: UnsafePointer<Int16>, _ b: UnsafePointer<Int16>, _ starts: UnsafePointer<Int>,
        _ weights: UnsafePointer<SIMD8<Int16>>, _ half: Int, _ count: Int, last: Int, _ da: UnsafeMutablePointer<UInt8>,
        _ db: UnsafeMutablePointer<UInt8>, _ step: Int, _ channels: Int, two: Bool
    ) {
        let raw = UnsafeRawPointer(a), apart = UnsafeRawPointer(b) - raw  // bytes from row a to row b
        let pixel = channels &* 2  // bytes per pixel
        // 4-byte stores: every RGBA pixel; packed RGB pixels but a row's last, whose 4th byte
        // is past the row (the next row's, written already when rows go in twos).
        let wideCount = channels == 4 ? count : (step == channels ? min(count, last) : 0)
        var w = weights
        var (ea, eb) = (da, db)
        for i in 0..<count {
            var p = raw + starts[i] &* pixel
            var sa = SIMD4<Int32>(), sb = SIMD4<Int32>()
            for _ in 0..<half {
                let u = w[0]
                // Whole 8-lane loads (4-lane ones are widened to Int32 lanes first).
                let x0 = p.loadUnaligned(as: SIMD8<Int16>.self)
                let x1 = p.loadUnaligned(fromByteOffset: pixel, as: SIMD8<Int16>.self)
                sa &+= multiplyAdd(zipLow(x0, x1), u)
                if two {
                    let y0 = p.loadUnaligned(fromByteOffset: apart, as: SIMD8<Int16>.self)
                    let y1 = p.loadUnaligned(fromByteOffset: apart &+ pixel, as: SIMD8<Int16>.self)
                    sb &+= multiplyAdd(zipLow(y0, y1), u)
                }
                p += 2 &* pixel
                w += 1
            }
            let wide = i < wideCount
            storePixel(sa, ea, channels, wide: wide)
            if two { storePixel(sb, eb, channels, wide: wide) }
            ea += step
            eb += step
        }
    }

    /// Output pixels `from ..< destination` of one row, a sample at a time, with the same
    /// integers as `intermediatePixels`.
    private static func intermediateTail(
        _ row: UnsafePointer<Int16>, _ weights: ResampleWeights, _ from: Int, _ d: UnsafeMutablePointer<UInt8>,
        _ step: Int, _ channels: Int
    ) {
        let taps = weights.taps
        for i in from..<weights.destination {
            var sums = SIMD4<Int32>()
            for c in 0..<channels {
                var s: Int32 = 0
                for k in 0..<taps {
                    s &+= Int32(row[(weights.starts[i] &+ k) &* channels &+ c]) &* weights.weights[i &* taps &+ k]
                }
                sums[c] = s
            }
            storePixel(sums, d + i &* step, channels, wide: false)
        }
    }

    /// (x0, y0, x1, y1, x2, y2, x3, y3): one `punpcklwd`. Zipped as bytes: zipped as Int16
    /// lanes, the optimiser folds the zip into its `pmaddwd` match and rebuilds it from
    /// 64-bit loads with eight shuffles.
    @inline(__always)
    private static func zipLow(_ x: SIMD8<Int16>, _ y: SIMD8<Int16>) -> SIMD8<Int16> {
        let a = unsafeBitCast(x, to: SIMD16<UInt8>.self), b = unsafeBitCast(y, to: SIMD16<UInt8>.self)
        let z = SIMD16(a[0], a[1], b[0], b[1], a[2], a[3], b[2], b[3], a[4], a[5], b[4], b[5], a[6], a[7], b[6], b[7])
        return unsafeBitCast(z, to: SIMD8<Int16>.self)
    }

    /// One pixel's sums (6 + 14 fraction bits) rounded half up to bytes, clamped to 0...255 by
    /// SSE2's saturating packs, not per lane with branches. `wide`: one 4-byte store, whose 4th
    /// byte of an RGB pixel lands on the next pixel's red before that pixel is written.
    @inline(__always)
    private static func storePixel(_ s: SIMD4<Int32>, _ d: UnsafeMutablePointer<UInt8>, _ channels: Int, wide: Bool) {
        // pointwiseMin/Max compile to packssdw + packuswb here (`replace(with:where:)` to
        // compares and blends, three times the instructions).
        let n = pointwiseMin(pointwiseMax((s &+ (1 << 19)) &>> 20, SIMD4(repeating: 0)), SIMD4(repeating: 255))
        let b = SIMD4<UInt8>(truncatingIfNeeded: n)
        if wide {
            UnsafeMutableRawPointer(d).storeBytes(of: b, as: SIMD4<UInt8>.self)
            return
        }
        d[0] = b[0]
        d[1] = b[1]
        d[2] = b[2]
        if channels > 3 { d[3] = b[3] }
    }
}
