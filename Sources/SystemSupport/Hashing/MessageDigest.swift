internal import CCrypto
import Foundation

/// SHA-256 (FIPS 180-4), for the manifest's `sha256` of each prepared file, the spool's
/// streaming digest, cache and shard keys.
///
///     SHA256.hash(Data("abc".utf8)).hexString
///     // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
package typealias SHA256 = MessageDigest<SHA256Algorithm>

/// SHA-1 (FIPS 180-4), used only to build name-based UUIDs (RFC 4122 §4.3). Not for security:
/// SHA-1 is broken for collision resistance.
///
///     SHA1.hash(Data("abc".utf8)).hexString   // "a9993e364706816aba3e25717850c26c9cd0d89d"
package typealias SHA1 = MessageDigest<SHA1Algorithm>

/// A message digest computed by libcrypto (OpenSSL 3's EVP API, which uses the CPU's SHA
/// extensions where it has them): fed in pieces of any size, finished once.
///
///     var hasher = SHA256()
///     hasher.update(Data("ab".utf8))
///     hasher.update(Data("c".utf8))
///     hasher.finalize().hexString   // "ba7816bf…15ad", as SHA256.hash(Data("abc".utf8))
///
/// A value like any other: a copy goes on from where the original was, on its own (the
/// libcrypto context is duplicated on the first update of a shared one).
///
/// - Complexity: O(n) in the bytes hashed; constant memory.
package struct MessageDigest<Algorithm: DigestAlgorithm>: Sendable {
    private var context: DigestContext

    package init() { context = DigestContext(Algorithm.implementation) }

    /// Hashes `data` in one go.
    package static func hash<D: DataProtocol>(_ data: D) -> [UInt8] {
        var hasher = Self()
        hasher.update(data)
        return hasher.finalize()
    }

    /// The lower-case hex digest of `data`, as written in the manifest.
    ///
    ///     SHA256.hexDigest(of: Data())   // "e3b0c442…b855"
    package static func hexDigest<D: DataProtocol>(of data: D) -> String { hash(data).hexString }

    package mutating func update<D: DataProtocol>(_ data: D) {
        if !isKnownUniquelyReferenced(&context) { context = DigestContext(copying: context) }
        for region in data.regions {
            region.withUnsafeBytes { raw in
                guard raw.count > 0 else { return }
                Libcrypto.check(EVP_DigestUpdate(context.pointer, raw.baseAddress, raw.count), "EVP_DigestUpdate")
            }
        }
    }

    /// The digest (32 bytes for SHA-256, 20 for SHA-1). The hasher should not be used afterwards.
    package mutating func finalize() -> [UInt8] {
        if !isKnownUniquelyReferenced(&context) { context = DigestContext(copying: context) }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        Libcrypto.check(EVP_DigestFinal_ex(context.pointer, &digest, &length), "EVP_DigestFinal_ex")
        return Array(digest.prefix(Int(length)))
    }
}

/// Which of libcrypto's digests a `MessageDigest` computes.
package protocol DigestAlgorithm: Sendable {
    /// libcrypto's implementation (an `EVP_MD`), fetched once and kept for the process.
    static var implementation: OpaquePointer { get }
}

/// SHA-256, for `SHA256`.
package enum SHA256Algorithm: DigestAlgorithm {
    // An EVP_MD is immutable once fetched and safe to share between threads.
    nonisolated(unsafe) package static let implementation = Libcrypto.fetchDigest("SHA256")
}

/// SHA-1, for `SHA1`.
package enum SHA1Algorithm: DigestAlgorithm {
    nonisolated(unsafe) package static let implementation = Libcrypto.fetchDigest("SHA1")
}

/// One libcrypto digest context (`EVP_MD_CTX`), freed with its owner. Sendable because a
/// `MessageDigest` updates only a context it holds the one reference to.
private final class DigestContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ implementation: OpaquePointer) {
        pointer = Libcrypto.newContext()
        Libcrypto.check(EVP_DigestInit_ex2(pointer, implementation, nil), "EVP_DigestInit_ex2")
    }

    init(copying other: DigestContext) {
        pointer = Libcrypto.newContext()
        Libcrypto.check(EVP_MD_CTX_copy_ex(pointer, other.pointer), "EVP_MD_CTX_copy_ex")
    }

    deinit { EVP_MD_CTX_free(pointer) }
}

/// The few calls into libcrypto that can only fail when memory runs out or the library is
/// broken (no SHA-256 in its default provider): a failure stops the process with the call's name.
enum Libcrypto {
    static func fetchDigest(_ name: String) -> OpaquePointer {
        guard let digest = EVP_MD_fetch(nil, name, nil) else {
            fatalError(
                "libcrypto has no \(name) digest (EVP_MD_fetch failed): is OpenSSL 3's default provider installed?")
        }
        return digest
    }

    static func newContext() -> OpaquePointer {
        guard let context = EVP_MD_CTX_new() else {
            fatalError("libcrypto could not allocate a digest context (EVP_MD_CTX_new)")
        }
        return context
    }

    static func check(_ result: Int32, _ call: StaticString) {
        if result != 1 { fatalError("libcrypto's \(call) failed") }
    }
}
