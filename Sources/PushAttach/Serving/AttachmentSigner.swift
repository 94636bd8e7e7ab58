import Foundation
import SystemSupport

/// Signs and checks `AttachmentLink`s: HMAC-SHA256 under a secret key, base64url without padding.
///
///     let signer = try AttachmentSigner(keyFile: URL(fileURLWithPath: "/etc/pushattach/key"))
///     let path = AttachmentLink(source: url, typeHint: "image").path(signedBy: signer)
///
/// The sender (a push backend) and the server share the key; a device never sees it.
public struct AttachmentSigner: Sendable {
    private let key: [UInt8]

    /// A signer with `key`'s bytes. An empty key signs nothing a server should trust; the
    /// initialisers that read a key refuse one.
    public init(key: [UInt8]) { self.key = key }

    /// The key in the file `keyFile` (its bytes, one trailing newline dropped).
    ///
    /// - Throws: `AttachmentError` of kind `.invalidArgument` when the file cannot be read or
    ///   holds no key.
    public init(keyFile: URL) throws(AttachmentError) {
        let data: Data
        do { data = try Data(contentsOf: keyFile) } catch {
            throw AttachmentError(
                kind: .invalidArgument,
                reason: "cannot read the signing key file \(keyFile.path): \(error.localizedDescription)")
        }
        try self.init(keyText: data, origin: "the key file \(keyFile.path)")
    }

    /// The key in `environment[variable]` (its bytes, one trailing newline dropped); nil when
    /// the variable is not set.
    public init?(environment: [String: String], variable: String = "PUSHATTACH_SIGNING_KEY") throws(AttachmentError) {
        guard let value = environment[variable] else { return nil }
        try self.init(keyText: Data(value.utf8), origin: variable)
    }

    private init(keyText: Data, origin: String) throws(AttachmentError) {
        var bytes = Array(keyText)
        if bytes.last == 0x0A { bytes.removeLast() }
        guard !bytes.isEmpty else {
            throw AttachmentError(kind: .invalidArgument, reason: "\(origin) holds no signing key (it is empty)")
        }
        key = bytes
    }

    /// The signature of `signedPart` (`AttachmentLink.signedPart`), base64url without padding.
    public func signature(for signedPart: String) -> String {
        Base64URL.encode(HMACSHA256.authenticate(Data(signedPart.utf8), key: key))
    }

    /// True when `signature` is this key's signature of `signedPart`, spelled exactly as
    /// `signature(for:)` spells it: base64url without padding, the unused low bits of the last
    /// character zero. Another spelling of the same bytes is refused, so a link has one valid
    /// form (one cache key at a CDN). The text is compared in constant time.
    public func isValid(_ signature: String, for signedPart: String) -> Bool {
        HMACSHA256.constantTimeEqual(Array(signature.utf8), Array(self.signature(for: signedPart).utf8))
    }
}
