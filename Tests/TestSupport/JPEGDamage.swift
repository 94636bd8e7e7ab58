/// Damaged copies of a JPEG, the same every run (a fixed LCG): in turn cut short, one bit
/// flipped, one byte changed, a stray restart marker and fill with a byte dropped in, each at a
/// random place in the entropy-coded data (from `scanStart`, the first byte after SOS).
///
///     for (trial, bytes) in JPEGDamage.variants(of: original, scanStart: start, count: 100, seed: 7).enumerated() {
///         // decode `bytes` both ways and compare
///     }
public enum JPEGDamage {
    public static func variants(of original: [UInt8], scanStart: Int, count: Int, seed: UInt64) -> [[UInt8]] {
        precondition(scanStart < original.count, "JPEGDamage: scanStart \(scanStart) is past the file's \(original.count) bytes")
        var seed = seed
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        return (0..<count).map { trial in
            var bytes = original
            let at = scanStart + next(original.count - scanStart)
            switch trial % 5 {
            case 0: bytes.removeSubrange(at...)  // cut short
            case 1: bytes[at] ^= UInt8(1 << next(8))  // one bit flipped
            case 2: bytes[at] = UInt8(next(256))  // one byte changed
            case 3: bytes.insert(contentsOf: [0xFF, 0xD0 + UInt8(next(8))], at: at)  // a stray restart marker
            default: bytes.insert(contentsOf: [0xFF, 0xFF, UInt8(next(256))], at: at)  // fill and a byte
            }
            return bytes
        }
    }
}
