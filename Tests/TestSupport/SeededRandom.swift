import Foundation

/// A small seeded generator so every test run sees the same "random" data.
///
///     var rng = SplitMix64(seed: TestSeed.value(default: 0xC0FFEE, for: "random bytes"))
///     let n = Int.random(in: 0..<10, using: &rng)
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The seed of a randomised test: `$PUSHATTACH_TEST_SEED` when set (to replay or explore),
/// else the test's fixed default. Printed either way, so a failure names what reproduces it.
public enum TestSeed {
    public static func value(default fallback: UInt64, for test: String) -> UInt64 {
        let env = ProcessInfo.processInfo.environment["PUSHATTACH_TEST_SEED"]
        let seed =
            env.flatMap {
                UInt64($0.hasPrefix("0x") ? String($0.dropFirst(2)) : $0, radix: $0.hasPrefix("0x") ? 16 : 10)
            } ?? fallback
        print("\(test): seed \(seed) (replay with PUSHATTACH_TEST_SEED=\(seed))")
        return seed
    }
}
