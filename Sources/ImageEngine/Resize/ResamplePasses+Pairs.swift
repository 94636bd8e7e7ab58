extension ResamplePasses {
    /// Two consecutive output rows of the vertical pass over 8-bit rows at once (`verticalRow`
    /// for each), converting every shared source row to Float once instead of twice.
    ///
    ///     // rows: the step + taps source rows from the first output's start
    ///     verticalRowPair(rows, step: 3, wj, wNext, taps: 22, width: w, channels: 4,
    ///                     sums: scratch, into: row, next: row + w * 4, columnStep: 4)
    ///
    /// `rows[0 ..< taps]` are the first output's taps (weights `w0`), `rows[step ..< step + taps]`
    /// the second's (`w1`). Only for a table with `exactForBytes`: every product and partial sum
    /// is then exact, so the order of the adds, which differs from `sumTaps`, cannot change a
    /// bit. Needs `step + 2 <= taps` (at least two shared rows). Runs in strips of
    /// `stripPixels` columns so both rows of sums stay in L1; `sums` holds
    /// `2 × stripPixels × channels` Floats.
    /// - Complexity: O((`taps` + `step`) × row) conversions, O(2 × `taps` × row) products.
    static func verticalRowPair<Output: ResampleSample>(
        _ rows: UnsafePointer<UnsafePointer<UInt8>>, step: Int, _ w0: UnsafePointer<Float>,
        _ w1: UnsafePointer<Float>, taps: Int, width: Int, channels: Int, sums: UnsafeMutablePointer<Float>,
        into d0: UnsafeMutablePointer<Output>, next d1: UnsafeMutablePointer<Output>, columnStep: Int
    ) {
        precondition(step >= 0 && step &+ 2 <= taps, "the two outputs must share two rows")
        let gain = ResampleWeights.gain(from: UInt8.self, to: Output.self)
        let a0 = sums, a1 = sums + stripPixels &* channels
        withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: step &+ taps) { strip in
            let r = strip.baseAddress!
            var x = 0
            while x < width {
                let n = min(stripPixels, width &- x), o = x &* channels
                for k in 0..<(step &+ taps) { (r + k).initialize(to: rows[k] + o) }
                sumStripPair(UnsafePointer(r), step: step, w0, w1, taps: taps, into: a0, next: a1, count: n &* channels)
                writeSums(
                    a0, width: n, channels: channels, gain: gain, into: d0 + x &* columnStep, columnStep: columnStep)
                writeSums(
                    a1, width: n, channels: channels, gain: gain, into: d1 + x &* columnStep, columnStep: columnStep)
                x &+= n
            }
        }
    }

    /// Pixels per strip of `verticalRowPair`: two rows of sums of at most 4 KB each.
    static let stripPixels = 256

    /// Floats of `sums` scratch `verticalRowPair` needs.
    static func pairSums(channels: Int) -> Int { 2 * stripPixels * channels }

    /// The sums of one strip (`count` Floats from each row pointer) for both outputs: the
    /// shared rows update both, two rows per sweep; then each output's own rows.
    @inline(__always)
    private static func sumStripPair(
        _ rows: UnsafePointer<UnsafePointer<UInt8>>, step: Int, _ w0: UnsafePointer<Float>,
        _ w1: UnsafePointer<Float>, taps: Int, into a0: UnsafeMutablePointer<Float>,
        next a1: UnsafeMutablePointer<Float>, count: Int
    ) {
        // Shared rows, two at a time; the first sweep stores both rows of sums.
        var k = step
        do {
            let r0 = rows[k], r1 = rows[k &+ 1]
            let x0 = w0[k], x1 = w0[k &+ 1], y0 = w1[0], y1 = w1[1]
            for b in 0..<count {
                let f0 = Float(r0[b]), f1 = Float(r1[b])
                a0[b] = f0 * x0 + f1 * x1
                a1[b] = f0 * y0 + f1 * y1
            }
            k &+= 2
        }
        while k &+ 1 < taps {
            let r0 = rows[k], r1 = rows[k &+ 1]
            let x0 = w0[k], x1 = w0[k &+ 1], y0 = w1[k &- step], y1 = w1[k &- step &+ 1]
            for b in 0..<count {
                let f0 = Float(r0[b]), f1 = Float(r1[b])
                a0[b] += f0 * x0 + f1 * x1
                a1[b] += f0 * y0 + f1 * y1
            }
            k &+= 2
        }
        if k < taps {
            let r0 = rows[k], x0 = w0[k], y0 = w1[k &- step]
            for b in 0..<count {
                let f0 = Float(r0[b])
                a0[b] += f0 * x0
                a1[b] += f0 * y0
            }
        }
        // The rows only the first output reads, then those only the second reads.
        addTaps(rows, w0, 0..<step, into: a0, count: count)
        addTaps(rows + taps, w1 + (taps &- step), 0..<step, into: a1, count: count)
    }

    /// acc += rows[k] · w[k] for k in `range`, four rows per sweep.
    @inline(__always)
    private static func addTaps(
        _ rows: UnsafePointer<UnsafePointer<UInt8>>, _ w: UnsafePointer<Float>, _ range: Range<Int>,
        into acc: UnsafeMutablePointer<Float>, count: Int
    ) {
        var k = range.lowerBound
        while k &+ 3 < range.upperBound {
            let r0 = rows[k], r1 = rows[k &+ 1], r2 = rows[k &+ 2], r3 = rows[k &+ 3]
            let w0 = w[k], w1 = w[k &+ 1], w2 = w[k &+ 2], w3 = w[k &+ 3]
            for b in 0..<count {
                acc[b] += (Float(r0[b]) * w0 + Float(r1[b]) * w1) + (Float(r2[b]) * w2 + Float(r3[b]) * w3)
            }
            k &+= 4
        }
        while k < range.upperBound {
            let r0 = rows[k], w0 = w[k]
            for b in 0..<count { acc[b] += Float(r0[b]) * w0 }
            k &+= 1
        }
    }
}
