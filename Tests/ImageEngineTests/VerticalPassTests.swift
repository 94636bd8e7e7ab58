import TestSupport
import Testing

@testable import ImageEngine

/// The vertical pass sums in sweeps of four taps, and `RowResizer` runs two output rows at a
/// time over 8-bit rows: these pin both to the column-at-a-time sum they replaced
/// (`acc = r0·w0 + r1·w1`, `acc += rk·wk + rk+1·wk+1`, then an odd last tap), bit for bit.
@Suite struct VerticalPassTests {
    /// The pass as it was, one column at a time: the reference.
    static func reference<Input: ResampleSample>(
        _ rows: [[Input]], _ w: [Float], count: Int
    ) -> [Float] {
        (0..<count).map { b in
            var s: Float
            var k: Int
            if rows.count >= 2 {
                s = Float(rows[0][b].widened) * w[0] + Float(rows[1][b].widened) * w[1]
                k = 2
            } else {
                s = Float(rows[0][b].widened) * w[0]
                k = 1
            }
            while k + 1 < rows.count {
                s += Float(rows[k][b].widened) * w[k] + Float(rows[k + 1][b].widened) * w[k + 1]
                k += 2
            }
            if k < rows.count { s += Float(rows[k][b].widened) * w[k] }
            return s
        }
    }

    static func sums<Input: ResampleSample>(_ rows: [[Input]], _ w: [Float], count: Int) -> [Float] {
        var acc = [Float](repeating: .nan, count: count)
        let buffers = rows.map { row -> UnsafeMutablePointer<Input> in
            let p = UnsafeMutablePointer<Input>.allocate(capacity: row.count)
            p.initialize(from: row, count: row.count)
            return p
        }
        defer { buffers.forEach { $0.deallocate() } }
        let pointers = buffers.map { UnsafePointer($0) }
        pointers.withUnsafeBufferPointer { r in
            w.withUnsafeBufferPointer { wp in
                acc.withUnsafeMutableBufferPointer { a in
                    ResamplePasses.sumTaps(
                        r.baseAddress!, wp.baseAddress!, taps: rows.count, into: a.baseAddress!, count: count)
                }
            }
        }
        return acc
    }

    /// Weights of a real Lanczos3 table (the taps the resizer uses) and arbitrary ones.
    static func weights(taps: Int, rng: inout SplitMix64) -> [[Float]] {
        var real = ResampleWeights(source: taps * 5, destination: 17)
        if real.taps != taps { real = ResampleWeights(source: 40, destination: 40) }
        let table =
            Array(real.unitWeights.prefix(real.taps)) + [Float](repeating: 0.25, count: max(0, taps - real.taps))
        let random = (0..<taps).map { _ in Float(Int32(truncatingIfNeeded: rng.next() % 32768) - 9000) / 16384 }
        return [Array(table.prefix(taps)), random]
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8, 13, 22, 23, 25])
    func sweepsMatchTheColumnSum(taps: Int) {
        var rng = SplitMix64(seed: UInt64(0x5EED_0000 + taps))
        for count in [1, 15, 16, 17, 33, 64, 100] {
            for w in Self.weights(taps: taps, rng: &rng) {
                let rows8: [[UInt8]] = (0..<taps).map { _ in
                    (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                }
                #expect(
                    Self.sums(rows8, w, count: count).map(\.bitPattern)
                        == Self.reference(rows8, w, count: count).map(\.bitPattern),
                    "UInt8 taps \(taps) count \(count)")
                let rows16: [[Int16]] = (0..<taps).map { _ in
                    (0..<count).map { _ in Int16(Int(rng.next() % 40000) - 20000) }
                }
                #expect(
                    Self.sums(rows16, w, count: count).map(\.bitPattern)
                        == Self.reference(rows16, w, count: count).map(\.bitPattern),
                    "Int16 taps \(taps) count \(count)")
            }
        }
    }

    /// `verticalRowPair` against `verticalRow` run once per output row, on real Lanczos3
    /// tables, rows narrower and wider than a strip, packed and mapped (every other pixel).
    @Test(arguments: [1, 3, 4])
    func pairsMatchRowAtATime(channels: Int) {
        var rng = SplitMix64(seed: 0xFA12 + UInt64(channels))
        print("VerticalPassTests seed \(0xFA12 + channels)")
        for (source, destination) in [(97, 31), (61, 20), (7000 / 25, 2048 / 25), (40, 33), (355, 16)] {
            let wy = ResampleWeights(source: source, destination: destination)
            #expect(wy.exactForBytes, "\(source) -> \(destination)")
            guard wy.maxStep + 2 <= wy.taps else { continue }
            for width in [1, 5, ResamplePasses.stripPixels, ResamplePasses.stripPixels + 45] {
                let samples = width * channels
                let rows: [UnsafeMutablePointer<UInt8>] = (0..<source).map { _ in
                    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: samples)
                    for b in 0..<samples { p[b] = UInt8(truncatingIfNeeded: rng.next()) }
                    return p
                }
                defer { rows.forEach { $0.deallocate() } }
                for step in [channels, 2 * channels] {
                    for j in 0..<(destination - 1) {
                        let first = wy.starts[j], span = wy.starts[j + 1] - first + wy.taps
                        let expected = Self.singles(rows, wy, j, width: width, channels: channels, step: step)
                        let got = Self.pair(
                            Array(rows[first..<(first + span)]), wy, j, width: width, channels: channels, step: step)
                        #expect(got == expected, "\(source) -> \(destination) row \(j) width \(width) step \(step)")
                    }
                }
            }
        }
    }

    /// Output rows `j ..< j + count` as `verticalRow` makes them, a pixel every `step` elements.
    static func singles(
        _ rows: [UnsafeMutablePointer<UInt8>], _ wy: ResampleWeights, _ j: Int, width: Int, channels: Int, step: Int,
        count: Int = 2
    ) -> [[Int16]] {
        var acc = [Float](repeating: 0, count: width * channels)
        return (j..<(j + count)).map { i in
            var out = [Int16](repeating: 0, count: width * step)
            let taps = Array(rows[wy.starts[i]..<(wy.starts[i] + wy.taps)]).map { UnsafePointer($0) }
            taps.withUnsafeBufferPointer { r in
                wy.unitWeights.withUnsafeBufferPointer { w in
                    acc.withUnsafeMutableBufferPointer { a in
                        out.withUnsafeMutableBufferPointer { o in
                            ResamplePasses.verticalRow(
                                r.baseAddress!, weights: w.baseAddress! + i * wy.taps, taps: wy.taps, width: width,
                                channels: channels, accumulator: a.baseAddress!, into: o.baseAddress!,
                                columnStep: step)
                        }
                    }
                }
            }
            return out
        }
    }

    /// The same two rows from one `verticalRowPair`.
    static func pair(
        _ span: [UnsafeMutablePointer<UInt8>], _ wy: ResampleWeights, _ j: Int, width: Int, channels: Int, step: Int
    ) -> [[Int16]] {
        var sums = [Float](repeating: 0, count: ResamplePasses.pairSums(channels: channels))
        var out = [Int16](repeating: 0, count: 2 * width * step)
        let r = span.map { UnsafePointer($0) }
        r.withUnsafeBufferPointer { r in
            wy.unitWeights.withUnsafeBufferPointer { w in
                sums.withUnsafeMutableBufferPointer { s in
                    out.withUnsafeMutableBufferPointer { o in
                        let w0 = w.baseAddress! + j * wy.taps
                        ResamplePasses.verticalRowPair(
                            r.baseAddress!, step: wy.starts[j + 1] - wy.starts[j], w0, w0 + wy.taps, taps: wy.taps,
                            width: width, channels: channels, sums: s.baseAddress!, into: o.baseAddress!,
                            next: o.baseAddress! + width * step, columnStep: step)
                    }
                }
            }
        }
        return [Array(out[0..<(width * step)]), Array(out[(width * step)...])]
    }

    /// `verticalBytes` (Int32 fixed point on `pmaddwd`) against the Float `verticalRow`, one
    /// output and two, bit for bit: reductions, a same-size table and an enlargement; widths
    /// around its 16-column blocks; random bytes and hard 0/255 edges (ringing below 0).
    @Test(arguments: [1, 3, 4])
    func integerBytesMatchTheFloatPass(channels: Int) {
        #expect(ResampleWeights.shift(from: UInt8.self, to: Int16.self) == 8, "verticalBytes shifts by 8")
        var rng = SplitMix64(seed: 0xB17E + UInt64(channels))
        for (source, destination) in [(97, 31), (2500 / 20, 2048 / 20), (40, 33), (355, 16), (30, 30), (20, 47)] {
            let wy = ResampleWeights(source: source, destination: destination)
            #expect(wy.fitsInt16, "\(source) -> \(destination)")
            for width in [1, 5, 16, 17, 37, 301] {
                let samples = width * channels
                let rows: [UnsafeMutablePointer<UInt8>] = (0..<source).map { y in
                    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: samples)
                    for b in 0..<samples {
                        p[b] = b % 7 == 0 ? (y % 3 == 0 ? 255 : 0) : UInt8(truncatingIfNeeded: rng.next())
                    }
                    return p
                }
                defer { rows.forEach { $0.deallocate() } }
                for j in 0..<destination {
                    let expected = Self.singles(rows, wy, j, width: width, channels: channels, step: channels, count: 1)
                    #expect(Self.bytes(rows, wy, j, width: width, channels: channels, two: false) == expected)
                    guard j + 1 < destination else { continue }
                    let both = Self.singles(rows, wy, j, width: width, channels: channels, step: channels)
                    #expect(
                        Self.bytes(rows, wy, j, width: width, channels: channels, two: true) == both,
                        "\(source) -> \(destination) rows \(j), \(j + 1) width \(width)")
                }
            }
        }
    }

    /// The whole-frame `verticalBytes` (what `vertical` runs for bytes into the packed
    /// intermediate in an optimised build; rows in twos) against `verticalRow` per output row,
    /// bit for bit, on a frame with a row stride.
    @Test(arguments: [3, 4])
    func wholeFrameVerticalMatchesTheFloatRows(channels: Int) {
        var rng = SplitMix64(seed: 0xF4A3 + UInt64(channels))
        for (source, destination, width) in [(97, 31, 37), (2500 / 20, 2048 / 20, 16), (355, 16, 5), (40, 33, 1)] {
            let wy = ResampleWeights(source: source, destination: destination)
            let samples = width * channels, stride = samples + 3
            let frame = UnsafeMutablePointer<UInt8>.allocate(capacity: source * stride)
            defer { frame.deallocate() }
            for b in 0..<(source * stride) { frame[b] = UInt8(truncatingIfNeeded: rng.next()) }
            var out = [Int16](repeating: -1, count: destination * samples)
            // The kernel itself: `vertical` takes it only in optimised builds.
            out.withUnsafeMutableBufferPointer { o in
                ResamplePasses.verticalBytes(
                    UnsafePointer(frame), stride: stride, width: width, weights: wy, channels: channels,
                    into: o.baseAddress!, PixelMapping(channels: channels, stride: samples))
            }
            let rows = (0..<source).map { frame + $0 * stride }
            for j in 0..<destination {
                let expected = Self.singles(rows, wy, j, width: width, channels: channels, step: channels, count: 1)
                #expect(Array(out[(j * samples)..<((j + 1) * samples)]) == expected[0], "\(source) -> \(destination) row \(j)")
            }
        }
    }

    /// Output row `j` (and `j + 1` when `two`) from `verticalBytes`, packed.
    static func bytes(
        _ rows: [UnsafeMutablePointer<UInt8>], _ wy: ResampleWeights, _ j: Int, width: Int, channels: Int, two: Bool
    ) -> [[Int16]] {
        let samples = width * channels
        let first = wy.starts[j], step = two ? wy.starts[j + 1] - first : 0
        var out = [Int16](repeating: -1, count: (two ? 2 : 1) * samples)
        let r = rows[first..<(first + step + wy.taps)].map { UnsafePointer($0) }
        r.withUnsafeBufferPointer { r in
            wy.unitWeights.withUnsafeBufferPointer { w in
                out.withUnsafeMutableBufferPointer { o in
                    let w0 = w.baseAddress! + j * wy.taps
                    ResamplePasses.verticalBytes(
                        r.baseAddress!, step: step, w0, two ? w0 + wy.taps : nil, taps: wy.taps, samples: samples,
                        into: o.baseAddress!, next: two ? o.baseAddress! + samples : nil)
                }
            }
        }
        return two ? [Array(out[0..<samples]), Array(out[samples...])] : [out]
    }
}
