internal import CCrypto
import Foundation

/// HMAC-SHA256 (RFC 2104), by libcrypto, for the signatures of `serve`'s attachment links.
///
///     HMACSHA256.authenticate(Data("what do ya want for nothing?".utf8), key: Array("Jefe".utf8)).hexString
///     // "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" (RFC 4231, case 2)
package enum HMACSHA256 {
    /// The 32-byte tag of `message` under `key` (a key over 64 bytes is hashed first).
    package static func authenticate<D: DataProtocol>(_ message: D, key: [UInt8]) -> [UInt8] {
        let message = Array(message)
        var tag = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // libcrypto reads a null key as "keep the key set before": an empty key (or message)
        // is passed as a pointer to no bytes, never as nil.
        let result = withUnsafeBytes(of: UInt8(0)) { nothing in
            key.withUnsafeBytes { key in
                message.withUnsafeBytes { message in
                    HMAC(
                        SHA256Algorithm.implementation, key.baseAddress ?? nothing.baseAddress, Int32(key.count),
                        (message.baseAddress ?? nothing.baseAddress)?.assumingMemoryBound(to: UInt8.self),
                        message.count, &tag, &length)
                }
            }
        }
        if result == nil { fatalError("libcrypto's HMAC failed") }
        return Array(tag.prefix(Int(length)))
    }

    /// True when `a` equals `b`, in time that depends on their lengths only (no early exit that
    /// would tell an attacker how many leading bytes of a forged tag were right): libcrypto's
    /// `CRYPTO_memcmp`.
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }
}
