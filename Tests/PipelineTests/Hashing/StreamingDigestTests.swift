import Foundation
import TestSupport
import Testing

@testable import SystemSupport

/// SHA-256 fed in pieces, as the spool feeds it while a body arrives: any cut of a message gives
/// the one-shot digest, a copied hasher goes on by itself, and megabytes of fixed bytes give
/// the digests Python's hashlib gives them.
@Suite("SHA-256 fed in pieces", .tags(.slow), .notInFastTier)
struct StreamingDigestTests {
    static func digest(_ bytes: [UInt8], pieces: Int) -> String {
        var hasher = SHA256()
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

    @Test func everyShortLengthInPiecesEqualsOneShot() {
        let data = Self.bytes(1000, seed: 0x5EED)
        for length in 0...1000 {
            let message = Array(data[0..<length])
            let oneShot = SHA256.hexDigest(of: message)
            #expect(Self.digest(message, pieces: 3) == oneShot, "\(length) bytes in 3 pieces")
            #expect(Self.digest(message, pieces: 7) == oneShot, "\(length) bytes in 7 pieces")
        }
    }

    /// The expected digests: `hashlib.sha256` over the same xorshift bytes.
    @Test(arguments: [
        (3_000_017, 1, "856989efb1e272c8ef7ab7954f588ff759f9ba118fa007256178243fedf1b830"),
        (3_000_017, 37, "856989efb1e272c8ef7ab7954f588ff759f9ba118fa007256178243fedf1b830"),
        (1 << 20, 4096, "9a5d0aa21fcfd174a7cf9c8783d01dca2504c5eebd1ca275770f56f13cf3b75b"),
        (1 << 20, 1000, "9a5d0aa21fcfd174a7cf9c8783d01dca2504c5eebd1ca275770f56f13cf3b75b"),
    ])
    func megabytesInUnevenPieces(count: Int, pieces: Int, expected: String) {
        let data = Self.bytes(count, seed: UInt64(count))
        #expect(Self.digest(data, pieces: pieces) == expected)
        #expect(SHA256.hexDigest(of: data) == expected)
    }

    @Test func aCopyGoesOnByItself() {
        var first = SHA256()
        first.update(Data("ab".utf8))
        var second = first
        first.update(Data("c".utf8))
        second.update(Data("d".utf8))
        #expect(first.finalize().hexString == SHA256.hexDigest(of: Data("abc".utf8)))
        #expect(second.finalize().hexString == SHA256.hexDigest(of: Data("abd".utf8)))
    }
}
