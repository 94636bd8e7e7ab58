internal import CHashShim
import Foundation

/// SHA-256 (FIPS 180-4 §6.2), for the manifest's `sha256` of each prepared file.
///
///     SHA256.hash(Data("abc".utf8)).hexString
///     // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
///
/// The block function runs on the CPU's SHA extensions where it has them (x86-64 SHA-NI, in
/// `CHashShim`; several times the Swift one's speed), else in Swift below; both give the same
/// digest (`SHA256HardwareTests`).
///
/// - Complexity: O(n) in the bytes hashed; constant memory.
package struct SHA256: Sendable {
    /// Whether this CPU has the SHA extensions: asked once.
    package static let hardwareAvailable = pa_sha256_has_hardware() != 0
    private let usesHardware: Bool
    private var state: [UInt32] = [
        0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A,
        0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19,
    ]
    private var buffer = MessageBlockBuffer()
    private var schedule = [UInt32](repeating: 0, count: 64)

    package init() { usesHardware = Self.hardwareAvailable }

    /// A hasher on the Swift block function even where the CPU has SHA extensions (`hardware:
    /// false`), for tests that compare the two; `hardware: true` only where `hardwareAvailable`.
    package init(hardware: Bool) {
        precondition(!hardware || Self.hardwareAvailable, "this CPU has no SHA extensions")
        usesHardware = hardware
    }

    /// Hashes `data` in one go.
    package static func hash<D: DataProtocol>(_ data: D) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.finalize()
    }

    /// The lower-case hex digest of `data`, as written in the manifest.
    ///
    ///     SHA256.hexDigest(of: Data())   // "e3b0c442…b855"
    package static func hexDigest<D: DataProtocol>(of data: D) -> String { hash(data).hexString }

    package mutating func update<D: DataProtocol>(_ data: D) {
        for region in data.regions {
            var pending = takeBuffer()
            region.withUnsafeBytes { raw in pending.feedRuns(raw) { blocks in compress(blocks) } }
            buffer = pending
        }
    }

    /// The 32-byte digest. The hasher should not be used afterwards.
    package mutating func finalize() -> [UInt8] {
        var pending = takeBuffer()
        let padding = pending.padding()
        padding.withUnsafeBytes { raw in pending.feedRuns(raw) { blocks in compress(blocks) } }
        return state.flatMap { $0.bigEndianBytes }
    }

    /// The 64 round constants (FIPS 180-4 §4.2.2), from the table the hardware path uses.
    private static let k = Array(UnsafeBufferPointer(start: pa_sha256_round_constants(), count: 64))

    /// Moves the buffer out of `self`, so `compress` can mutate `self` while it is fed.
    private mutating func takeBuffer() -> MessageBlockBuffer {
        defer { buffer = MessageBlockBuffer() }
        return buffer
    }

    /// Compresses `blocks` (a multiple of 64 bytes) into the state.
    private mutating func compress(_ blocks: UnsafeRawBufferPointer) {
        if usesHardware {
            state.withUnsafeMutableBufferPointer { words in
                pa_sha256_hardware_blocks(
                    words.baseAddress!, blocks.baseAddress!.assumingMemoryBound(to: UInt8.self), blocks.count / 64)
            }
            return
        }
        for offset in stride(from: 0, to: blocks.count, by: 64) {
            compressInSwift(UnsafeRawBufferPointer(rebasing: blocks[offset..<offset + 64]))
        }
    }

    private mutating func compressInSwift(_ block: UnsafeRawBufferPointer) {
        let k = Self.k
        schedule.withUnsafeMutableBufferPointer { w in
            for i in 0..<16 { w[i] = block.loadBigEndianUInt32(at: i * 4) }
            for i in 16..<64 {
                let s0 = w[i - 15].rotatedRight(7) ^ w[i - 15].rotatedRight(18) ^ (w[i - 15] >> 3)
                let s1 = w[i - 2].rotatedRight(17) ^ w[i - 2].rotatedRight(19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d) = (state[0], state[1], state[2], state[3])
            var (e, f, g, h) = (state[4], state[5], state[6], state[7])
            for i in 0..<64 {
                let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                let ch = (e & f) ^ (~e & g)
                let t1 = h &+ s1 &+ ch &+ k[i] &+ w[i]
                let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
            state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= h
        }
    }
}
