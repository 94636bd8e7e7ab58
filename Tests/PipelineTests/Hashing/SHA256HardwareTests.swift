import Foundation
import Testing

@testable import SystemSupport

/// SHA-256's two block functions, the CPU's SHA extensions (`CHashShim`) and the Swift one: each
/// gives the FIPS vectors, and the two agree on every length from 0 to 1,000 bytes and on
/// megabytes fed in uneven pieces (the held remainder, then runs of whole blocks).
@Suite("SHA-256 on the CPU's SHA extensions and in Swift")
struct SHA256HardwareTests {
    static func digest(_ bytes: [UInt8], hardware: Bool, pieces: Int = 1) -> String {
        var hasher = SHA256(hardware: hardware)
        let size = max(1, (bytes.count + pieces - 1) / pieces)
        for start in stride(from: 0, to: bytes.count, by: size) {
            hasher.update(bytes[start..<min(start + size, bytes.count)])
        }
        return hasher.finalize().hexString
    }

    /// Bytes from a fixed xorshift sequence: the same on every run.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var x = seed | 1
        return (0..<count).map { _ in
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            return UInt8(truncatingIfNeeded: x >> 32)
        }
    }

    static var implementations: [Bool] { SHA256.hardwareAvailable ? [false, true] : [false] }

    @Test(arguments: implementations)
    func fipsVectors(hardware: Bool) {
        for vector in HashingTests.vectors {
            #expect(Self.digest(Array(vector.message.utf8), hardware: hardware) == vector.sha256, "\(vector)")
        }
        // FIPS 180-2 B.3: a million "a", in pieces that straddle block boundaries.
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(
            Self.digest(million, hardware: hardware, pieces: 1001)
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(.enabled(if: SHA256.hardwareAvailable, "this CPU has no SHA extensions"))
    func bothAgreeOnEveryShortLength() {
        let data = Self.bytes(1000, seed: 0x5EED)
        for length in 0...1000 {
            let message = Array(data[0..<length])
            let software = Self.digest(message, hardware: false)
            #expect(Self.digest(message, hardware: true) == software, "\(length) bytes")
            #expect(Self.digest(message, hardware: true, pieces: 3) == software, "\(length) bytes in 3 pieces")
        }
    }

    @Test(.enabled(if: SHA256.hardwareAvailable, "this CPU has no SHA extensions"))
    func bothAgreeOnMegabytes() {
        for (count, pieces) in [(3_000_017, 1), (2_500_000, 37), (1 << 20, 4096)] {
            let data = Self.bytes(count, seed: UInt64(count))
            #expect(Self.digest(data, hardware: true, pieces: pieces) == Self.digest(data, hardware: false), "\(count) bytes")
        }
    }
}
