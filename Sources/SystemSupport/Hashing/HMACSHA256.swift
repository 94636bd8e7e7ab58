import Foundation

/// HMAC-SHA256 (RFC 2104 over FIPS 180-4), for the signatures of `serve`'s attachment links.
///
///     HMACSHA256.authenticate(Data("what do ya want for nothing?".utf8), key: Array("Jefe".utf8)).hexString
///     // "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" (RFC 4231, case 2)
package enum HMACSHA256 {
    /// The 32-byte tag of `message` under `key` (a key over 64 bytes is hashed first).
    package static func authenticate<D: DataProtocol>(_ message: D, key: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5C })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// True when `a` equals `b`, in time that depends on their lengths only (no early exit that
    /// would tell an attacker how many leading bytes of a forged tag were right).
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
