import Foundation

/// Fixed-point Lanczos3 weights for one axis, `source` samples to `destination` samples.
///
///     let w = ResampleWeights(source: 720, destination: 256)
///     // output i = sum over k < w.taps of input[w.starts[i] + k] * w.weights[i * w.taps + k] >> 14
///
/// The kernel is widened by the reduction factor when shrinking, so downscaling is properly
/// antialiased (as Pillow and libvips do). Every output uses exactly `taps` inputs: windows at
/// the edges are shifted inward and zero-padded, so inner loops need no bounds checks and have
/// a constant trip count. Each row of weights sums to exactly `one`.
struct ResampleWeights: Sendable {
    static let precision = 14
    static let one: Int32 = 1 << precision
    static let half: Int32 = 1 << (precision - 1)
    static let lobes = 3.0

    let source: Int
    let destination: Int
    let taps: Int
    let starts: [Int]
    let weights: [Int32]
    /// `weights` as fractions of one (exact in Float: 14-bit numerators), for the SIMD passes.
    let unitWeights: [Float]
    /// Which horizontal passes this table carries its weights for. A table only the vertical
    /// pass reads needs none, and one read over a single plane needs only `.planes`: the
    /// multi-channel layouts (`splatWeights`, `pairWeights`) are two thirds of a table's bytes,
    /// and building them a third of its build time.
    let layouts: Layouts
    /// `unitWeights` with each output's taps padded to `evenTaps` (zero weights) and every
    /// weight repeated in 4 lanes, for the horizontal pass: one aligned load per tap. Empty
    /// unless `layouts` has `.pixels`.
    let splatWeights: [SIMD4<Float>]
    /// Whether the passes take this table to the fixed-point kernels: it `fitsInt16`, in an
    /// optimised build (`ResamplePasses.dispatchesFixedPoint`).
    var fixedPoint: Bool { fitsInt16 && ResamplePasses.dispatchesFixedPoint }
    /// `weights` as Int16 pairs for the integer horizontal pass: for output `i`, entry
    /// `i × evenTaps / 2 + q` holds taps 2q and 2q + 1 (the pad tap 0), repeated in four lane
    /// pairs for one `pmaddwd`. Empty unless `fitsInt16` and `layouts` has `.pixels`.
    let pairWeights: [SIMD8<Int16>]
    /// `weights` as Int16 for the greyscale pass over the intermediate
    /// (`ResamplePasses.horizontalGrayIntermediate`): output `i`'s taps at `i × grayTaps`, padded
    /// with zero weights to `grayTaps`, so each 8 taps are one 8-lane load. Empty unless
    /// `fitsInt16` and `layouts` has `.planes`.
    let grayWeights: [Int16]
    /// `taps` rounded up to a multiple of 8.
    var grayTaps: Int { (taps + 7) & ~7 }
    /// The bytes the table's arrays hold.
    var bytes: Int {
        starts.count * MemoryLayout<Int>.stride + weights.count * 4 + unitWeights.count * 4
            + splatWeights.count * MemoryLayout<SIMD4<Float>>.stride + pairWeights.count * MemoryLayout<SIMD8<Int16>>.stride
            + grayWeights.count * 2
    }
    /// `taps` rounded up to even.
    var evenTaps: Int { (taps + 1) & ~1 }
    /// The largest `starts[i + 1] - starts[i]`: how many rows the window of the next output
    /// moves on (0 for one output).
    let maxStep: Int
    /// True when every Float sum of 8-bit samples times `unitWeights` is exact: 255 · Σ|w|
    /// (in units of 2^-14) stays below 2^24 for every output, so each product and partial sum
    /// is a multiple of 2^-14 the significand holds, and the sum's bits do not depend on the
    /// order of the adds. Lanczos3 tables sit far inside this (Σ|w| ≈ 1.3 · 2^14).
    let exactForBytes: Bool
    /// True when Σ|w| (in units of 2^-14) fits Int16 for every output: each weight is then an
    /// Int16, and 255 · Σ|w| shifted to the intermediate's 6 fraction bits stays inside Int16,
    /// so the vertical pass over bytes can run on `pmaddwd` (`ResamplePasses.verticalBytes`)
    /// with no clamp; and the horizontal pass over the intermediate
    /// (`ResamplePasses.horizontalIntermediate`), whose sums then stay under 32768 · 32767 + 2^19
    /// < 2^31. Implies `exactForBytes`. Lanczos3 tables sit at about 1.3 · 2^14.
    let fitsInt16: Bool

    /// The horizontal passes a table is built for (`layouts`).
    struct Layouts: OptionSet, Sendable {
        let rawValue: Int
        /// One channel (a plane): `grayWeights`.
        static let planes = Layouts(rawValue: 1)
        /// Interleaved channels (RGB, RGBA): `splatWeights` and `pairWeights`.
        static let pixels = Layouts(rawValue: 2)
        static let all: Layouts = [.planes, .pixels]
        /// What the horizontal pass over `channels` channels reads.
        static func horizontal(channels: Int) -> Layouts { channels == 1 ? .planes : .pixels }
    }

    /// The table with every layout (`layouts: .all`), as tests and one-off callers want it.
    init(source: Int, destination: Int) {
        self.init(source: source, destination: destination, layouts: .all)
    }

    init(source: Int, destination: Int, layouts: Layouts) {
        self.init(weightsOnly: source, destination)
        if !layouts.isEmpty { self = adding(layouts) }
    }

    /// The weights with no horizontal layout.
    private init(weightsOnly source: Int, _ destination: Int) {
        precondition(source > 0 && destination > 0, "empty resample axis")
        self.source = source
        self.destination = destination
        let scale = Double(source) / Double(destination)
        let filterScale = max(scale, 1)
        let support = Self.lobes * filterScale
        let windows = (0..<destination).map { Self.window($0, scale: scale, support: support, source: source) }
        // The widest window: ⌈2 · support⌉ samples at most, one less than the bound
        // `taps(source:destination:)`; the tap more only ever weighed 0 (a ninth of the work).
        let taps = windows.map(\.count).max()!
        self.taps = taps

        var starts = [Int](repeating: 0, count: destination)
        var weights = [Int32](repeating: 0, count: destination * taps)
        var real = [Double](repeating: 0, count: taps)
        for (i, window) in windows.enumerated() {
            // Shift the window inward so [start, start + taps) stays inside the source.
            let start = min(window.lowerBound, source - taps)
            starts[i] = start
            var sum = 0.0
            for k in 0..<taps {
                let x = start + k
                real[k] = window.contains(x) ? Self.kernel(Self.distance(x, i, scale: scale) / filterScale) : 0
                sum += real[k]
            }
            if sum == 0 {  // cannot happen for Lanczos3 windows; keep a sane fallback anyway
                real[min(max(window.lowerBound - start, 0), taps - 1)] = 1
                sum = 1
            }
            // Quantise, then put the rounding residue on the largest tap so the row sums to `one`.
            var total: Int32 = 0
            var largest = 0
            for k in 0..<taps {
                let q = Int32((real[k] / sum * Double(Self.one)).rounded())
                weights[i * taps + k] = q
                total += q
                if real[k] > real[largest] { largest = k }
            }
            weights[i * taps + largest] += Self.one - total
        }
        self.starts = starts
        self.weights = weights
        var maxStep = 0, largestAbsSum: Int64 = 0
        for i in 0..<destination {
            if i > 0 { maxStep = max(maxStep, starts[i] - starts[i - 1]) }
            var absSum: Int64 = 0
            for k in 0..<taps { absSum += Int64(abs(weights[i * taps + k])) }
            largestAbsSum = max(largestAbsSum, absSum)
        }
        self.maxStep = maxStep
        exactForBytes = 255 * largestAbsSum < 1 << 24
        fitsInt16 = largestAbsSum <= Int64(Int16.max)
        self.unitWeights = weights.map { Float($0) / Float(Self.one) }
        (layouts, splatWeights, pairWeights, grayWeights) = ([], [], [], [])
    }

    /// This table with `more` layouts built too (the weights and the layouts it has are shared,
    /// not recomputed).
    func adding(_ more: Layouts) -> ResampleWeights {
        ResampleWeights(self, layouts: layouts.union(more))
    }

    private init(_ table: ResampleWeights, layouts: Layouts) {
        (source, destination, taps, starts, weights) = (table.source, table.destination, table.taps, table.starts, table.weights)
        (unitWeights, maxStep, exactForBytes, fitsInt16) = (table.unitWeights, table.maxStep, table.exactForBytes, table.fitsInt16)
        self.layouts = layouts
        // `layouts` holds the table's own (`adding` passes their union): build only the new ones.
        let addsPixels = layouts.contains(.pixels) && !table.layouts.contains(.pixels)
        let addsPlanes = layouts.contains(.planes) && !table.layouts.contains(.planes)
        splatWeights = addsPixels ? Self.splat(unitWeights, taps: taps, destination: destination) : table.splatWeights
        pairWeights =
            addsPixels && fitsInt16 ? Self.pairs(weights, taps: taps, destination: destination) : table.pairWeights
        grayWeights =
            addsPlanes && fitsInt16 ? Self.padded(weights, taps: taps, destination: destination) : table.grayWeights
    }

    /// `grayWeights` of a table whose weights all fit Int16.
    private static func padded(_ weights: [Int32], taps: Int, destination: Int) -> [Int16] {
        let stride = (taps + 7) & ~7
        var padded = [Int16](repeating: 0, count: destination * stride)
        for i in 0..<destination {
            for k in 0..<taps { padded[i * stride + k] = Int16(weights[i * taps + k]) }
        }
        return padded
    }

    /// `splatWeights` from `unitWeights`.
    private static func splat(_ unit: [Float], taps: Int, destination: Int) -> [SIMD4<Float>] {
        let even = (taps + 1) & ~1
        var splat = [SIMD4<Float>](repeating: SIMD4(), count: destination * even)
        for i in 0..<destination {
            for k in 0..<taps { splat[i * even + k] = SIMD4(repeating: unit[i * taps + k]) }
        }
        return splat
    }

    /// `pairWeights` of a table whose weights all fit Int16.
    private static func pairs(_ weights: [Int32], taps: Int, destination: Int) -> [SIMD8<Int16>] {
        let half = (taps + 1) / 2
        var pairs = [SIMD8<Int16>](repeating: SIMD8(), count: destination * half)
        for i in 0..<destination {
            for q in 0..<half {
                let a = Int16(weights[i * taps + 2 * q])
                let b = 2 * q + 1 < taps ? Int16(weights[i * taps + 2 * q + 1]) : 0
                pairs[i * half + q] = SIMD8(a, b, a, b, a, b, a, b)
            }
        }
        return pairs
    }

    /// At least the inputs per output, for bounds that must not build the table (a table's
    /// `taps` is its widest window, usually one less): the kernel's support (3 lobes, widened
    /// by the reduction factor) on both sides, plus one, at most the source length.
    static func taps(source: Int, destination: Int) -> Int {
        let support = lobes * max(Double(source) / Double(destination), 1)
        return min(source, Int((support * 2).rounded(.up)) + 1)
    }

    /// At least `maxStep` of the table for `source` → `destination`, without building it:
    /// window starts move on by at most ⌈scale⌉ per output.
    static func maxStep(source: Int, destination: Int) -> Int {
        Int((Double(source) / Double(destination)).rounded(.up))
    }

    /// Source samples that output `i` reads: centre ± support, clamped to the source.
    static func window(_ i: Int, scale: Double, support: Double, source: Int) -> Range<Int> {
        let center = (Double(i) + 0.5) * scale
        let lo = max(0, Int((center - support + 0.5).rounded(.down)))
        let hi = min(source, Int((center + support + 0.5).rounded(.down)))
        return lo..<max(hi, lo + 1)
    }

    /// Distance, in source samples, from source sample `x`'s centre to output `i`'s centre.
    @inline(__always)
    static func distance(_ x: Int, _ i: Int, scale: Double) -> Double {
        Double(x) + 0.5 - (Double(i) + 0.5) * scale
    }

    /// Lanczos3: sinc(x) · sinc(x / 3) inside |x| < 3.
    static func kernel(_ x: Double) -> Double {
        let x = abs(x)
        if x < 1e-9 { return 1 }
        if x >= lobes { return 0 }
        let px = Double.pi * x
        return lobes * sin(px) * sin(px / lobes) / (px * px)
    }
}
