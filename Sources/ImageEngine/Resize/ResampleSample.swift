/// The sample types the resampling passes read and write: 8-bit pixels, and the 16-bit
/// intermediate that keeps 6 fraction bits and Lanczos overshoot between the two passes (so
/// the second pass sees the first one's ringing unclipped and unrounded, like a float resize).
///
///     let shift = ResampleWeights.shift(from: UInt8.self, to: Int16.self)   // 8
///     let v = Int16(clampingShifted: (acc + 1 << (shift - 1)) >> shift)
protocol ResampleSample: BitwiseCopyable {
    /// Fraction bits carried by the stored value.
    static var fractionBits: Int32 { get }
    var widened: Int32 { get }
    /// From an accumulator already shifted down to `fractionBits`, clamped to the type's range.
    init(clampingShifted v: Int32)
    /// The type's range in its own units (the stored value, fraction bits included).
    static var lowest: Float { get }
    static var highest: Float { get }
    /// From a value already inside `lowest...highest`.
    init(inRange v: Int32)
}

extension ResampleSample {
    /// `v` rounded to nearest and clamped to the type's range. The rounding adds 1.5 · 2^23,
    /// which leaves the integer in the low significand bits (exact for |v| < 2^22), and
    /// compiles to plain SSE2 compares, blends and adds, so loops of it vectorise.
    @inline(__always) init(rounding v: Float) {
        let c = v < Self.lowest ? Self.lowest : (v > Self.highest ? Self.highest : v)
        self.init(inRange: Int32(bitPattern: (c + 12_582_912).bitPattern) &- 0x4B40_0000)
    }
}

extension UInt8: ResampleSample {
    @inline(__always) static var fractionBits: Int32 { 0 }
    @inline(__always) var widened: Int32 { Int32(self) }
    /// Clamped to 0...255.
    @inline(__always) init(clampingShifted v: Int32) {
        self = UInt8(truncatingIfNeeded: Swift.min(Swift.max(v, 0), 255))
    }
    @inline(__always) static var lowest: Float { 0 }
    @inline(__always) static var highest: Float { 255 }
    @inline(__always) init(inRange v: Int32) { self = UInt8(truncatingIfNeeded: v) }
}

extension Int16: ResampleSample {
    /// -512..<512 in pixel units: far beyond any Lanczos3 overshoot of 8-bit data.
    @inline(__always) static var fractionBits: Int32 { 6 }
    @inline(__always) var widened: Int32 { Int32(self) }
    @inline(__always) init(clampingShifted v: Int32) { self = Int16(clamping: v) }
    @inline(__always) static var lowest: Float { -32768 }
    @inline(__always) static var highest: Float { 32767 }
    @inline(__always) init(inRange v: Int32) { self = Int16(truncatingIfNeeded: v) }
}

extension ResampleWeights {
    /// Right shift taking an accumulator of `Input` samples times weights to `Output` samples.
    @inline(__always)
    static func shift<Input: ResampleSample, Output: ResampleSample>(from: Input.Type, to: Output.Type) -> Int32 {
        Int32(precision) + Input.fractionBits - Output.fractionBits
    }

    /// The factor taking a sum of `Input` samples times unit weights to `Output` units.
    @inline(__always)
    static func gain<Input: ResampleSample, Output: ResampleSample>(from: Input.Type, to: Output.Type) -> Float {
        Float(sign: .plus, exponent: Int(Output.fractionBits - Input.fractionBits), significand: 1)
    }
}
