extension ResamplePasses {
    /// Greyscale rows of the 16-bit intermediate resampled into bytes on `pmaddwd`: each 8 taps
    /// of an output are one 8-lane load of samples times one of `grayWeights`, and four outputs'
    /// sums are added across lanes together (two rounds of interleave and add), rounded and
    /// packed into four bytes.
    ///
    ///     horizontalGrayIntermediate(tmp, stride: w, rows: 2, weights: wx, into: out, map)
    ///
    /// The same integers as `horizontalGray` (the pad taps weigh 0; no sum can overflow in a
    /// table that `fitsInt16`), so the same bytes. Outputs whose last load would end past the
    /// row run through the scalar sum. This is the luma and chroma planes' pass
    /// (`ImageProcessor.transcodePlanes`).
    /// - Complexity: O(`rows` × `weights.destination` × `weights.grayTaps`).
    static func horizontalGrayIntermediate(
        _ src: UnsafePointer<Int16>, stride: Int, rows: Int, weights: ResampleWeights,
        into dst: UnsafeMutablePointer<UInt8>, _ map: PixelMapping
    ) {
        let groups = weights.grayTaps &>> 3
        var loaded = weights.destination
        while loaded > 0 && weights.starts[loaded &- 1] &+ 8 &* groups > weights.source { loaded &-= 1 }
        let quads = loaded & ~3
        weights.starts.withUnsafeBufferPointer { s in
            weights.grayWeights.withUnsafeBufferPointer { w in
                var y = 0
                // Two rows at a time for 8-tap tables (fits down to about 1.3x; the vertical pass
                // hands rows over in pairs): each output's start and weights loaded once for both.
                while groups == 1 && y &+ 1 < rows {
                    let row = src + y &* stride, d = dst + (map.origin &+ y &* map.rowStep)
                    let (next, e) = (row + stride, d + map.rowStep)
                    grayQuadPairs(row, next, s.baseAddress!, w.baseAddress!, quads, d, e, map.columnStep)
                    grayTail(row, weights, from: quads, d, map.columnStep)
                    grayTail(next, weights, from: quads, e, map.columnStep)
                    y &+= 2
                }
                while y < rows {
                    let row = src + y &* stride, d = dst + (map.origin &+ y &* map.rowStep)
                    // Constant group counts for the common tables (up to 8 and 16 taps: fits down to
                    // about 1.3x and 2.6x), so their loads unroll.
                    switch groups {
                    case 1: grayQuads(row, s.baseAddress!, w.baseAddress!, 1, quads, d, map.columnStep)
                    case 2: grayQuads(row, s.baseAddress!, w.baseAddress!, 2, quads, d, map.columnStep)
                    default: grayQuads(row, s.baseAddress!, w.baseAddress!, groups, quads, d, map.columnStep)
                    }
                    grayTail(row, weights, from: quads, d, map.columnStep)
                    y &+= 1
                }
            }
        }
    }

    /// Outputs `0 ..< count` (a multiple of 4) of one row, four at a time.
    @inline(__always)
    private static func grayQuads(
        _ row: UnsafePointer<Int16>, _ starts: UnsafePointer<Int>, _ weights: UnsafePointer<Int16>, _ groups: Int,
        _ count: Int, _ d: UnsafeMutablePointer<UInt8>, _ step: Int
    ) {
        let taps = groups &* 8
        var i = 0
        while i < count {
            let s0 = graySum(row + starts[i], weights + i &* taps, groups)
            let s1 = graySum(row + starts[i &+ 1], weights + (i &+ 1) &* taps, groups)
            let s2 = graySum(row + starts[i &+ 2], weights + (i &+ 2) &* taps, groups)
            let s3 = graySum(row + starts[i &+ 3], weights + (i &+ 3) &* taps, groups)
            store(quadBytes(s0, s1, s2, s3), d + i &* step, step)
            i &+= 4
        }
    }

    /// `grayQuads` over two rows with the same table: outputs `0 ..< count` of `row` into `d` and
    /// of `next` into `e`, each output's start and weights loaded once for both. Kept out of
    /// line, as measured (perf): while it was inlined into the caller, with `multiplyAdd`, the
    /// optimiser left the lane widening as a call per 8 taps, twice the time; `graySums` now
    /// widens by hand as well.
    @inline(never)
    private static func grayQuadPairs(
        _ row: UnsafePointer<Int16>, _ next: UnsafePointer<Int16>, _ starts: UnsafePointer<Int>,
        _ weights: UnsafePointer<Int16>, _ count: Int, _ d: UnsafeMutablePointer<UInt8>,
        _ e: UnsafeMutablePointer<UInt8>, _ step: Int
    ) {
        var i = 0
        while i < count {
            let (a0, b0) = graySums(row, next, starts[i], weights + i &* 8)
            let (a1, b1) = graySums(row, next, starts[i &+ 1], weights + (i &+ 1) &* 8)
            let (a2, b2) = graySums(row, next, starts[i &+ 2], weights + (i &+ 2) &* 8)
            let (a3, b3) = graySums(row, next, starts[i &+ 3], weights + (i &+ 3) &* 8)
            store(quadBytes(a0, a1, a2, a3), d + i &* step, step)
            store(quadBytes(b0, b1, b2, b3), e + i &* step, step)
            i &+= 4
        }
    }

    /// Four outputs' lane sums (`graySum`s) added across lanes (interleave pairs and add,
    /// twice), rounded and clamped to bytes.
    @inline(__always)
    private static func quadBytes(
        _ s0: SIMD4<Int32>, _ s1: SIMD4<Int32>, _ s2: SIMD4<Int32>, _ s3: SIMD4<Int32>
    ) -> SIMD4<UInt8> {
        let a = SIMD4(s0[0], s1[0], s0[1], s1[1]) &+ SIMD4(s0[2], s1[2], s0[3], s1[3])
        let b = SIMD4(s2[0], s3[0], s2[1], s3[1]) &+ SIMD4(s2[2], s3[2], s2[3], s3[3])
        let sums = SIMD4(a[0], a[1], b[0], b[1]) &+ SIMD4(a[2], a[3], b[2], b[3])
        let n = pointwiseMin(pointwiseMax((sums &+ (1 << 19)) &>> 20, SIMD4(repeating: 0)), SIMD4(repeating: 255))
        return SIMD4<UInt8>(truncatingIfNeeded: n)
    }

    @inline(__always)
    private static func store(_ bytes: SIMD4<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ step: Int) {
        if step == 1 {
            UnsafeMutableRawPointer(out).storeBytes(of: bytes, as: SIMD4<UInt8>.self)
        } else {
            out[0] = bytes[0]
            out[step] = bytes[1]
            out[2 &* step] = bytes[2]
            out[3 &* step] = bytes[3]
        }
    }

    /// `graySum` of one 8-tap output in two rows, the weights loaded once.
    @inline(__always)
    private static func graySums(
        _ row: UnsafePointer<Int16>, _ next: UnsafePointer<Int16>, _ start: Int, _ w: UnsafePointer<Int16>
    ) -> (SIMD4<Int32>, SIMD4<Int32>) {
        let k = widen(UnsafeRawPointer(w).loadUnaligned(as: SIMD8<Int16>.self))
        let x = widen(UnsafeRawPointer(row + start).loadUnaligned(as: SIMD8<Int16>.self)) &* k
        let y = widen(UnsafeRawPointer(next + start).loadUnaligned(as: SIMD8<Int16>.self)) &* k
        return (x.evenHalf &+ x.oddHalf, y.evenHalf &+ y.oddHalf)
    }

    /// The lanes sign-extended, written out: `multiplyAdd`'s generic conversion was left as a
    /// call in `grayQuadPairs`.
    @inline(__always)
    private static func widen(_ v: SIMD8<Int16>) -> SIMD8<Int32> {
        SIMD8(Int32(v[0]), Int32(v[1]), Int32(v[2]), Int32(v[3]), Int32(v[4]), Int32(v[5]), Int32(v[6]), Int32(v[7]))
    }

    /// One output's products, pairwise added into four Int32 lanes (`pmaddwd` per 8 taps).
    @inline(__always)
    private static func graySum(_ p: UnsafePointer<Int16>, _ w: UnsafePointer<Int16>, _ groups: Int) -> SIMD4<Int32> {
        var sum = SIMD4<Int32>()
        for g in 0..<groups {
            let x = UnsafeRawPointer(p + g &* 8).loadUnaligned(as: SIMD8<Int16>.self)
            let k = UnsafeRawPointer(w + g &* 8).loadUnaligned(as: SIMD8<Int16>.self)
            sum &+= multiplyAdd(x, k)
        }
        return sum
    }

    /// Outputs `from ..< destination` of one row, a sample at a time, with the same integers.
    private static func grayTail(
        _ row: UnsafePointer<Int16>, _ weights: ResampleWeights, from: Int, _ d: UnsafeMutablePointer<UInt8>, _ step: Int
    ) {
        let taps = weights.taps
        for i in from..<weights.destination {
            var a: Int32 = 1 << 19
            for k in 0..<taps { a &+= Int32(row[weights.starts[i] &+ k]) &* weights.weights[i &* taps &+ k] }
            d[i &* step] = UInt8(clampingShifted: a >> 20)
        }
    }
}
