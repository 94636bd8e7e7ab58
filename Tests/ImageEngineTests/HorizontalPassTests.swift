import TestSupport
import Testing

@testable import ImageEngine

/// The horizontal pass from the 16-bit intermediate into bytes runs in Int32 fixed point
/// (`ResamplePasses.horizontalIntermediate`): these pin it to the exact sum, rounded half up,
/// sample for sample, including the pixels at the row's end that it resamples one at a time.
@Suite struct HorizontalPassTests {
    /// Σ x·w over the taps, exactly (Int64), to bytes: (s + 2^19) >> 20, clamped.
    static func reference(_ row: [Int16], _ wx: ResampleWeights, channels: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: wx.destination * channels)
        for i in 0..<wx.destination {
            for c in 0..<channels {
                var s: Int64 = 0
                for k in 0..<wx.taps {
                    s += Int64(row[(wx.starts[i] + k) * channels + c]) * Int64(wx.weights[i * wx.taps + k])
                }
                out[i * channels + c] = UInt8(max(0, min(255, (s + (1 << 19)) >> 20)))
            }
        }
        return out
    }

    /// The greyscale kernel (`horizontalGrayIntermediate`, the YCbCr planes' pass): four
    /// outputs a step on `pmaddwd`, two rows at a time for 8-tap tables, the rest one at a time;
    /// the exact sum for every table shape (up to 8, 16 and more taps), for 1, 2 and 3 rows (a
    /// pair and one left over), written through a transposing mapping as well.
    @Test func grayPassIsTheExactSum() {
        var rng = SplitMix64(seed: 0x6A4F)
        for (source, destination) in [(2500, 2048), (97, 31), (40, 33), (355, 16), (30, 30), (20, 47), (9, 2), (1000, 130)] {
            let wx = ResampleWeights(source: source, destination: destination)
            #expect(wx.fitsInt16)
            for rows in [1, 2, 3] {
                let data: [[Int16]] = (0..<rows).map { r in
                    (0..<source).map { b in
                        switch (b + r) % 5 {
                        case 0: Int16(truncatingIfNeeded: rng.next())
                        case 1: b % 2 == 0 ? -1_000 : 17_320
                        default: Int16(Int(rng.next() % 18_000) - 1_000)
                        }
                    }
                }
                let flat = data.flatMap { $0 }
                for transposed in [false, true] {
                    // Transposed: stored row r lands in upright column r (orientation 6).
                    let map =
                        transposed
                        ? PixelMapping(.right, storedWidth: destination, storedHeight: rows, channels: 1, uprightStride: rows)
                        : PixelMapping(channels: 1, stride: destination)
                    var out = [UInt8](repeating: 7, count: rows * destination + 16)
                    flat.withUnsafeBufferPointer { src in
                        out.withUnsafeMutableBufferPointer { dst in
                            ResamplePasses.horizontalGrayIntermediate(
                                src.baseAddress!, stride: source, rows: rows, weights: wx, into: dst.baseAddress!, map)
                        }
                    }
                    #expect(out.suffix(16).allSatisfy { $0 == 7 }, "wrote past the image")
                    for r in 0..<rows {
                        let expected = Self.reference(data[r], wx, channels: 1)
                        let got = (0..<destination).map { out[map.origin + r * map.rowStep + $0 * map.columnStep] }
                        #expect(got == expected, "\(source) -> \(destination) row \(r) transposed \(transposed)")
                    }
                }
            }
        }
    }

    @Test(arguments: [3, 4])
    func integerPassIsTheExactSum(channels: Int) {
        var rng = SplitMix64(seed: 0x40B1 + UInt64(channels))
        for (source, destination) in [(2500, 2048), (97, 31), (40, 33), (355, 16), (30, 30), (20, 47), (9, 2)] {
            let wx = ResampleWeights(source: source, destination: destination)
            #expect(wx.fitsInt16)
            for rows in [1, 2, 3] {
                // Ringing below 0 and above 255 (6 fraction bits), hard edges, and the full range.
                let data: [[Int16]] = (0..<rows).map { r in
                    (0..<(source * channels)).map { b in
                        switch (b + r) % 5 {
                        case 0: Int16(truncatingIfNeeded: rng.next())
                        case 1: b % 2 == 0 ? -1_000 : 17_320
                        default: Int16(Int(rng.next() % 18_000) - 1_000)
                        }
                    }
                }
                let flat = data.flatMap { $0 }
                // 16 canary bytes after the last row: a 4-byte store of its last pixel would hit them.
                var out = [UInt8](repeating: 7, count: rows * destination * channels + 16)
                // The kernel itself: `horizontal` takes it only in optimised builds.
                flat.withUnsafeBufferPointer { src in
                    out.withUnsafeMutableBufferPointer { dst in
                        ResamplePasses.horizontalIntermediate(
                            src.baseAddress!, stride: source * channels, rows: rows, weights: wx, channels: channels,
                            into: dst.baseAddress!, PixelMapping(channels: channels, stride: destination * channels))
                    }
                }
                #expect(out.suffix(16).allSatisfy { $0 == 7 }, "wrote past the last row")
                for r in 0..<rows {
                    let got = Array(out[(r * destination * channels)..<((r + 1) * destination * channels)])
                    #expect(got == Self.reference(data[r], wx, channels: channels), "\(source) -> \(destination) row \(r)")
                }
            }
        }
    }

    /// The Float pass it replaced, per sample: even taps summed in one lane, odd in another,
    /// added, times 2^-6, rounded half to even (its 1.5 · 2^23 add), clamped.
    static func floatPass(_ row: [Int16], _ wx: ResampleWeights, channels: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: wx.destination * channels)
        for i in 0..<wx.destination {
            for c in 0..<channels {
                var a0: Float = 0, a1: Float = 0
                for k in 0..<wx.taps {
                    let p = Float(row[(wx.starts[i] + k) * channels + c]) * wx.unitWeights[i * wx.taps + k]
                    if k % 2 == 0 { a0 += p } else { a1 += p }
                }
                let v = ((a0 + a1) * 0x1p-6).rounded(.toNearestOrEven)
                out[i * channels + c] = UInt8(max(0, min(255, v)))
            }
        }
        return out
    }

    /// Against the Float pass on the intermediate's real range (a 2500 → 2048 table, the W2
    /// reduction): no sample more than one level apart, and few apart at all.
    @Test func integerPassIsWithinOneLevelOfTheFloatPass() {
        var rng = SplitMix64(seed: 0x1E7E1)
        let wx = ResampleWeights(source: 2500, destination: 2048)
        var differing = 0, total = 0
        for _ in 0..<8 {
            let row = (0..<(2500 * 3)).map { _ in Int16(Int(rng.next() % 17_000) - 500) }
            let exact = Self.reference(row, wx, channels: 3), float = Self.floatPass(row, wx, channels: 3)
            for (e, f) in zip(exact, float) {
                #expect(abs(Int(e) - Int(f)) <= 1)
                if e != f { differing += 1 }
            }
            total += exact.count
        }
        print("HorizontalPassTests: \(differing) of \(total) samples one level from the Float pass")
        #expect(differing * 100 < total, "more than 1 % of samples moved")
    }
}

/// The weight tables' cache stays within its byte bound over many sizes and layouts, and hands
/// back the table it built, with the layouts asked for.
@Suite struct ResampleWeightCacheTests {
    @Test func boundedByBytes() {
        let cache = ResampleWeightCache()
        var most = 0
        let asks: [ResampleWeights.Layouts] = [[], .planes, .pixels, .all]
        for (n, source) in stride(from: 2100, to: 4100, by: 97).enumerated() {
            let layouts = asks[n % asks.count]
            let table = cache.weights(source, 2048, for: layouts)
            #expect(table.source == source && table.destination == 2048 && table.layouts == layouts)
            #expect(cache.weights(source, 2048, for: layouts).starts == table.starts)
            most = max(most, cache.bytes)
            // A layout asked for later is added to the held table.
            let more = cache.weights(source, 2048, for: .pixels)
            #expect(more.layouts.isSuperset(of: layouts.union(.pixels)) && more.weights == table.weights)
            most = max(most, cache.bytes)
        }
        #expect(most <= ResampleWeightCache.byteLimit)
        #expect(ResampleWeights(source: 2500, destination: 2048).bytes > 400_000, "a 2048 px table is not tiny")
    }

    /// A table built for planes only, or with a layout added later, holds the same weights in
    /// each layout as the table built with all of them, at a third of the bytes.
    @Test func layoutsAreTheFullTablesLayouts() {
        for (source, destination) in [(2520, 2048), (1260, 1024), (4032, 256), (640, 2048), (7, 3)] {
            let full = ResampleWeights(source: source, destination: destination)
            let planes = ResampleWeights(source: source, destination: destination, layouts: .planes)
            let added = planes.adding(.pixels)
            #expect(planes.grayWeights == full.grayWeights && planes.splatWeights.isEmpty && planes.pairWeights.isEmpty)
            #expect(added.grayWeights == full.grayWeights && added.pairWeights == full.pairWeights)
            #expect(added.splatWeights == full.splatWeights && added.layouts == .all)
            #expect(ResampleWeights(source: source, destination: destination, layouts: []).grayWeights.isEmpty)
            if destination == 2048 && source > destination { #expect(planes.bytes * 3 < full.bytes) }
        }
    }
}
