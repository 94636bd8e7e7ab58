import Foundation

/// SHA-1 (FIPS 180-4 §6.1), used only to build name-based UUIDs (RFC 4122 §4.3).
/// Not for security: SHA-1 is broken for collision resistance.
///
///     var hasher = SHA1()
///     hasher.update(Data("abc".utf8))
///     hasher.finalize().hexString   // "a9993e364706816aba3e25717850c26c9cd0d89d"
///
/// - Complexity: O(n) in the bytes hashed; constant memory.
package struct SHA1: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    private var buffer = MessageBlockBuffer()

    package init() {}

    /// Hashes `data` in one go.
    package static func hash<D: DataProtocol>(_ data: D) -> [UInt8] {
        var hasher = SHA1()
        hasher.update(data)
        return hasher.finalize()
    }

    package mutating func update<D: DataProtocol>(_ data: D) {
        for region in data.regions {
            var pending = takeBuffer()
            region.withUnsafeBytes { raw in pending.feed(raw) { block in compress(block) } }
            buffer = pending
        }
    }

    /// The 20-byte digest. The hasher should not be used afterwards.
    package mutating func finalize() -> [UInt8] {
        var pending = takeBuffer()
        let padding = pending.padding()
        padding.withUnsafeBytes { raw in pending.feed(raw) { block in compress(block) } }
        let words = [state.0, state.1, state.2, state.3, state.4]
        return words.flatMap { $0.bigEndianBytes }
    }

    /// Moves the buffer out of `self`, so `compress` can mutate `self` while it is fed.
    private mutating func takeBuffer() -> MessageBlockBuffer {
        defer { buffer = MessageBlockBuffer() }
        return buffer
    }

    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        var w = [UInt32](repeating: 0, count: 80)
        for i in 0..<16 { w[i] = block.loadBigEndianUInt32(at: i * 4) }
        for i in 16..<80 { w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotatedLeft(1) }
        var (a, b, c, d, e) = state
        for i in 0..<80 {
            let f: UInt32
            let k: UInt32
            switch i {
            case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
            case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
            case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
            default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
            }
            let t = a.rotatedLeft(5) &+ f &+ e &+ k &+ w[i]
            (e, d, c, b, a) = (d, c, b.rotatedLeft(30), a, t)
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }
}
