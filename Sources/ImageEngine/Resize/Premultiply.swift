/// Premultiplied-alpha conversions for RGBA rows, so resampling never bleeds the colour of
/// transparent pixels into visible ones.
///
///     Premultiply.isOpaque(src, width: w, height: h, stride: s)  // skip the work when true
enum Premultiply {
    /// True when every alpha byte is 255. Whole pixels are ANDed as 32-bit words (a straight
    /// loop that vectorises), and the alpha byte read from the result.
    static func isOpaque(_ src: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) -> Bool {
        for y in 0..<height {
            let row = UnsafeRawPointer(src + y * stride)
            var all: UInt32 = .max
            for x in 0..<width { all &= row.loadUnaligned(fromByteOffset: x &* 4, as: UInt32.self) }
            if UInt32(littleEndian: all) >> 24 != 255 { return false }
        }
        return true
    }

    /// Copies `src` into the packed `dst`, multiplying colour by alpha / 255 (rounded).
    static func premultiply(
        _ src: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, into dst: UnsafeMutablePointer<UInt8>
    ) {
        let rowBytes = width * 4
        for y in 0..<height {
            let s = src + y * stride
            let d = dst + y * rowBytes
            var i = 0
            while i < rowBytes {
                let a = UInt32(s[i &+ 3])
                d[i] = mul255(UInt32(s[i]), a)
                d[i &+ 1] = mul255(UInt32(s[i &+ 1]), a)
                d[i &+ 2] = mul255(UInt32(s[i &+ 2]), a)
                d[i &+ 3] = UInt8(truncatingIfNeeded: a)
                i &+= 4
            }
        }
    }

    /// Divides colour by alpha in place over `count` packed RGBA pixels; colour is 0 where
    /// alpha is 0, and clamped to 255 where resampling ringing made colour exceed alpha.
    static func unpremultiply(_ p: UnsafeMutablePointer<UInt8>, count: Int) {
        for i in 0..<count {
            let q = p + i &* 4
            let a = UInt32(q[3])
            if a == 255 { continue }
            if a == 0 {
                q[0] = 0; q[1] = 0; q[2] = 0
                continue
            }
            q[0] = div255(UInt32(q[0]), a)
            q[1] = div255(UInt32(q[1]), a)
            q[2] = div255(UInt32(q[2]), a)
        }
    }

    /// round(c · a / 255), exact for all 8-bit inputs.
    @inline(__always)
    static func mul255(_ c: UInt32, _ a: UInt32) -> UInt8 {
        let t = c &* a &+ 128
        return UInt8(truncatingIfNeeded: (t &+ (t >> 8)) >> 8)
    }

    /// min(255, round(c · 255 / a)) for a > 0.
    @inline(__always)
    static func div255(_ c: UInt32, _ a: UInt32) -> UInt8 {
        UInt8(truncatingIfNeeded: min(255, (c &* 255 &+ a / 2) / a))
    }
}
