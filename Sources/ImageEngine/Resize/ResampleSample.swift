/// The sample types the resampling passes read and write: 8-bit pixels, and the 16-bit
/// intermediate that keeps 6 fraction bits and Lanczos overshoot between the two passes (so
/// the second pass sees the first one's ringing unclipped and unrounded, like a float resize).
///
///     let v: Int16 = .init(fixedPoint: acc)   // acc has 14 fraction bits
protocol ResampleSample: BitwiseCopyable {
    /// Fraction bits carried by the stored value.
    static var fractionBits: Int32 { get }
    var widened: Int32 { get }
    /// The value of a 14-bit fixed-point accumulator already offset by `rounding`.
    init(fixedPoint: Int32)
}

extension ResampleSample {
    /// Added to an accumulator before `init(fixedPoint:)` so the shift rounds to nearest.
    @inline(__always) static var rounding: Int32 { 1 << (Int32(ResampleWeights.precision) - fractionBits - 1) }
}

extension UInt8: ResampleSample {
    @inline(__always) static var fractionBits: Int32 { 0 }
    @inline(__always) var widened: Int32 { Int32(self) }
    /// Clamped to 0...255.
    @inline(__always) init(fixedPoint v: Int32) {
        self = UInt8(truncatingIfNeeded: Swift.min(Swift.max(v >> Int32(ResampleWeights.precision), 0), 255))
    }
}

extension Int16: ResampleSample {
    @inline(__always) static var fractionBits: Int32 { 6 }
    @inline(__always) var widened: Int32 { Int32(self) }
    /// 6 fraction bits; -512..<512 in pixel units, far beyond any Lanczos3 overshoot of 8-bit data.
    @inline(__always) init(fixedPoint v: Int32) {
        self = Int16(clamping: v >> (Int32(ResampleWeights.precision) - Self.fractionBits))
    }
}
