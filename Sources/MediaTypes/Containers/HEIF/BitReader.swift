/// Reads bits most-significant first from a byte array, as the HEVC and AV1 specifications
/// write their headers. Every read throws past the end; nothing here can trap.
///
///     var bits = BitReader([0b1010_0000])
///     try bits.bits(3)        // 0b101
///     try bits.exponentialGolomb()
struct BitReader {
    struct End: Error {}

    private let bytes: [UInt8]
    private(set) var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next `n` bits (0...32) as an unsigned number.
    mutating func bits(_ n: Int) throws(End) -> Int {
        var value = 0
        for _ in 0..<n {
            guard position < bytes.count * 8 else { throw End() }
            value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
            position += 1
        }
        return value
    }

    mutating func flag() throws(End) -> Bool { try bits(1) == 1 }

    mutating func skip(_ n: Int) throws(End) {
        guard n >= 0, position + n <= bytes.count * 8 else { throw End() }
        position += n
    }

    /// An unsigned exponential-Golomb code (HEVC's `ue(v)`), at most 32 bits of value.
    mutating func exponentialGolomb() throws(End) -> Int {
        var zeros = 0
        while try bits(1) == 0 {
            zeros += 1
            guard zeros <= 31 else { throw End() }
        }
        return (1 << zeros) - 1 + (try bits(zeros))
    }

    /// AV1's `uvlc()`: like `ue(v)`, but 32 or more leading zeros mean 2^32 - 1.
    mutating func uvlc() throws(End) -> Int {
        var zeros = 0
        while try bits(1) == 0 {
            zeros += 1
            guard zeros < 32 else { return (1 << 32) - 1 }
        }
        return (1 << zeros) - 1 + (try bits(zeros))
    }
}
