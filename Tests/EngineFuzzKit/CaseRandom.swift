/// SplitMix64: the generator every case draws from, so a seed is the whole case.
///
///     var random = CaseRandom(seed: 42)
///     random.int(1...4000)
struct CaseRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed &+ 0x5EED_F022 }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }

    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

    /// One of `items`, each with its weight.
    mutating func weighted<T>(_ items: [(T, Int)]) -> T {
        var roll = int(0...(items.reduce(0) { $0 + $1.1 } - 1))
        for (item, weight) in items {
            if roll < weight { return item }
            roll -= weight
        }
        return items[items.count - 1].0
    }
}
