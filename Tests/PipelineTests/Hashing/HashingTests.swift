import Foundation
import TestSupport
import Testing

@testable import PushAttach
@testable import PushAttachBatch
@testable import SystemSupport

/// Vectors from FIPS 180-2 appendices A/B ("abc", the 448-bit message, a million "a") plus
/// block-boundary lengths checked against Python's hashlib.
@Suite("SHA-1, SHA-256 and HMAC-SHA256", .tags(.slow), .notInFastTier)
struct HashingTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let message: String
        let sha1: String
        let sha256: String
        var testDescription: String { "\(message.utf8.count) bytes" }
    }

    static let vectors: [Vector] = [
        Vector(
            message: "", sha1: "da39a3ee5e6b4b0d3255bfef95601890afd80709",
            sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        Vector(
            message: "abc", sha1: "a9993e364706816aba3e25717850c26c9cd0d89d",
            sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        Vector(
            message: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            sha1: "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
            sha256: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        Vector(
            message: String(repeating: "a", count: 55), sha1: "c1c8bbdc22796e28c0e15163d20899b65621d65a",
            sha256: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        Vector(
            message: String(repeating: "a", count: 56), sha1: "c2db330f6083854c99d4b5bfb6e8f29f201be699",
            sha256: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        Vector(
            message: String(repeating: "a", count: 64), sha1: "0098ba824b5c16427bd7a1122a5a442a25ec644d",
            sha256: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
    ]

    @Test(arguments: vectors)
    func oneShot(_ vector: Vector) {
        #expect(SHA1.hash(Data(vector.message.utf8)).hexString == vector.sha1)
        #expect(SHA256.hexDigest(of: Data(vector.message.utf8)) == vector.sha256)
    }

    @Test func millionAInUnevenChunks() {
        var sha1 = SHA1()
        var sha256 = SHA256()
        let chunk = Data(repeating: UInt8(ascii: "a"), count: 999)
        var left = 1_000_000
        while left > 0 {
            let piece = chunk.prefix(min(left, chunk.count))
            sha1.update(piece)
            sha256.update(piece)
            left -= piece.count
        }
        #expect(sha1.finalize().hexString == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
        #expect(sha256.finalize().hexString == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// RFC 4231's HMAC-SHA256 cases (5, a truncated tag, left out), and the empty key and message
    /// (Python's `hmac`).
    static let hmacVectors: [(key: [UInt8], message: [UInt8], tag: String)] = [
        (
            [UInt8](repeating: 0x0B, count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            [UInt8](repeating: 0xAA, count: 20), [UInt8](repeating: 0xDD, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            Array(1...25), [UInt8](repeating: 0xCD, count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            [UInt8](repeating: 0xAA, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            [UInt8](repeating: 0xAA, count: 131),
            Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
        ([], [], "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"),
    ]

    @Test func hmacVectorsOfRFC4231() {
        for (index, vector) in Self.hmacVectors.enumerated() {
            #expect(HMACSHA256.authenticate(vector.message, key: vector.key).hexString == vector.tag, "vector \(index)")
        }
    }

    @Test func constantTimeEqualComparesEveryByte() {
        let tag = HMACSHA256.authenticate(Data("a".utf8), key: [1, 2, 3])
        #expect(HMACSHA256.constantTimeEqual(tag, tag))
        #expect(HMACSHA256.constantTimeEqual([], []))
        for index in tag.indices {
            var forged = tag
            forged[index] ^= 1
            #expect(!HMACSHA256.constantTimeEqual(tag, forged), "byte \(index)")
        }
        #expect(!HMACSHA256.constantTimeEqual(tag, Array(tag.dropLast())))
    }

    @Test func uuidVersion5MatchesPython() {
        // python3 -c "import uuid; print(uuid.uuid5(uuid.NAMESPACE_URL, 'https://example.com/a.jpg'))"
        let uuid = UUID(version5: "https://example.com/a.jpg", namespace: .urlNamespace)
        #expect(uuid.uuidString.lowercased() == "0af39f86-695f-5b4f-8503-15ef9f8ea23c")
    }
}
