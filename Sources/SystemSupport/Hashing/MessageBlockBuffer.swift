import Foundation

/// The 64-byte block framing and Merkle–Damgård padding shared by SHA-1 and SHA-256.
///
///     var buffer = MessageBlockBuffer()
///     bytes.withUnsafeBytes { buffer.feed($0) { block in compress(block) } }
package struct MessageBlockBuffer: Sendable {
    private var pending: [UInt8] = []
    private(set) var totalBytes: UInt64 = 0

    package init() {}

    /// Hands every complete 64-byte block to `compress`, keeping the remainder.
    package mutating func feed(_ bytes: UnsafeRawBufferPointer, _ compress: (UnsafeRawBufferPointer) -> Void) {
        feedRuns(bytes) { run in
            for offset in stride(from: 0, to: run.count, by: 64) {
                compress(UnsafeRawBufferPointer(rebasing: run[offset..<offset + 64]))
            }
        }
    }

    /// Hands the complete 64-byte blocks to `compress` as runs of consecutive blocks (each
    /// run's count a nonzero multiple of 64: the held remainder completed, then the rest of
    /// `bytes` in one go), keeping the remainder. For a block function that takes many blocks
    /// per call.
    package mutating func feedRuns(_ bytes: UnsafeRawBufferPointer, _ compress: (UnsafeRawBufferPointer) -> Void) {
        totalBytes &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            offset = take
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { compress($0) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = (bytes.count - offset) & ~63
        if whole > 0 {
            compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + whole]))
            offset += whole
        }
        pending.append(contentsOf: bytes[offset...])
    }

    /// 0x80, zeros, then the message length in bits as a big-endian UInt64 (FIPS 180-4 §5.1.1).
    /// Feeding it must not count towards the length, so callers feed it once, at the end.
    package mutating func padding() -> [UInt8] {
        let bitLength = totalBytes &* 8
        let used = Int(totalBytes % 64)
        let zeros = used < 56 ? 55 - used : 119 - used
        var bytes: [UInt8] = [0x80] + [UInt8](repeating: 0, count: zeros)
        bytes += UInt32(truncatingIfNeeded: bitLength >> 32).bigEndianBytes
        bytes += UInt32(truncatingIfNeeded: bitLength).bigEndianBytes
        return bytes
    }
}

extension UInt32 {
    @inline(__always) package func rotatedLeft(_ n: UInt32) -> UInt32 { (self << n) | (self >> (32 - n)) }
    @inline(__always) package func rotatedRight(_ n: UInt32) -> UInt32 { (self >> n) | (self << (32 - n)) }
    package var bigEndianBytes: [UInt8] {
        [
            UInt8(truncatingIfNeeded: self >> 24), UInt8(truncatingIfNeeded: self >> 16),
            UInt8(truncatingIfNeeded: self >> 8), UInt8(truncatingIfNeeded: self),
        ]
    }
}

extension UnsafeRawBufferPointer {
    @inline(__always) package func loadBigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16
            | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }
}

extension Sequence where Element == UInt8 {
    /// Lower-case hexadecimal, two digits per byte.
    ///
    ///     [0xDE, 0xAD].hexString   // "dead"
    package var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
