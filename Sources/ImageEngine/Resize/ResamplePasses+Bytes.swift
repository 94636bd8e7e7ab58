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
    private static func multiplyAdd(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD4<Int32> {
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
