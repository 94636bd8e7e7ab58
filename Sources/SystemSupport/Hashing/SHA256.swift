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

    private static let k: [UInt32] = [
        0x428A_2F98, 0x7137_4491, 0xB5C0_FBCF, 0xE9B5_DBA5, 0x3956_C25B, 0x59F1_11F1, 0x923F_82A4, 0xAB1C_5ED5,
        0xD807_AA98, 0x1283_5B01, 0x2431_85BE, 0x550C_7DC3, 0x72BE_5D74, 0x80DE_B1FE, 0x9BDC_06A7, 0xC19B_F174,
        0xE49B_69C1, 0xEFBE_4786, 0x0FC1_9DC6, 0x240C_A1CC, 0x2DE9_2C6F, 0x4A74_84AA, 0x5CB0_A9DC, 0x76F9_88DA,
        0x983E_5152, 0xA831_C66D, 0xB003_27C8, 0xBF59_7FC7, 0xC6E0_0BF3, 0xD5A7_9147, 0x06CA_6351, 0x1429_2967,
        0x27B7_0A85, 0x2E1B_2138, 0x4D2C_6DFC, 0x5338_0D13, 0x650A_7354, 0x766A_0ABB, 0x81C2_C92E, 0x9272_2C85,
        0xA2BF_E8A1, 0xA81A_664B, 0xC24B_8B70, 0xC76C_51A3, 0xD192_E819, 0xD699_0624, 0xF40E_3585, 0x106A_A070,
        0x19A4_C116, 0x1E37_6C08, 0x2748_774C, 0x34B0_BCB5, 0x391C_0CB3, 0x4ED8_AA4A, 0x5B9C_CA4F, 0x682E_6FF3,
        0x748F_82EE, 0x78A5_636F, 0x84C8_7814, 0x8CC7_0208, 0x90BE_FFFA, 0xA450_6CEB, 0xBEF9_A3F7, 0xC671_78F2,
    ]

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
