extension ResamplePasses {
    /// The taps of one output row summed into `acc` (`count` Floats), in the order every
    /// vertical pass has always used: `acc = r0·w0 + r1·w1`, then `acc += rk·wk + rk+1·wk+1`
    /// per pair, then `acc += r·w` for an odd last tap (`acc = r0·w0` alone for one tap).
    ///
    ///     sumTaps(rows, wj, taps: 22, into: acc, count: width * 4)
    ///
    /// Each sweep along the row takes two pairs, so the accumulator is read and written once
    /// per four taps instead of once per pair; the per-column order of the adds is unchanged,
    /// so the bits are too. The sweeps are straight loops the compiler vectorises.
    /// - Complexity: O(`taps` × `count`).
    @inline(__always)
    static func sumTaps<Input: ResampleSample>(
        _ rows: UnsafePointer<UnsafePointer<Input>>, _ wj: UnsafePointer<Float>, taps: Int,
        into acc: UnsafeMutablePointer<Float>, count: Int
    ) {
        var k: Int
        if taps >= 4 {
            let r0 = rows[0], r1 = rows[1], r2 = rows[2], r3 = rows[3]
            let w0 = wj[0], w1 = wj[1], w2 = wj[2], w3 = wj[3]
            for b in 0..<count {
                var a = Float(r0[b].widened) * w0 + Float(r1[b].widened) * w1
                a += Float(r2[b].widened) * w2 + Float(r3[b].widened) * w3
                acc[b] = a
            }
            k = 4
        } else if taps >= 2 {
            let r0 = rows[0], r1 = rows[1], w0 = wj[0], w1 = wj[1]
            for b in 0..<count { acc[b] = Float(r0[b].widened) * w0 + Float(r1[b].widened) * w1 }
            k = 2
        } else {
            let r0 = rows[0], w0 = wj[0]
            for b in 0..<count { acc[b] = Float(r0[b].widened) * w0 }
            k = 1
        }
        while k &+ 3 < taps {
            let r0 = rows[k], r1 = rows[k &+ 1], r2 = rows[k &+ 2], r3 = rows[k &+ 3]
            let w0 = wj[k], w1 = wj[k &+ 1], w2 = wj[k &+ 2], w3 = wj[k &+ 3]
            for b in 0..<count {
                var a = acc[b]
                a += Float(r0[b].widened) * w0 + Float(r1[b].widened) * w1
                a += Float(r2[b].widened) * w2 + Float(r3[b].widened) * w3
                acc[b] = a
            }
            k &+= 4
        }
        if k &+ 1 < taps {
            let r0 = rows[k], r1 = rows[k &+ 1], w0 = wj[k], w1 = wj[k &+ 1]
            for b in 0..<count { acc[b] += Float(r0[b].widened) * w0 + Float(r1[b].widened) * w1 }
            k &+= 2
        }
        if k < taps {
            let r0 = rows[k], w0 = wj[k]
            for b in 0..<count { acc[b] += Float(r0[b].widened) * w0 }
        }
    }
}
