import Foundation

extension UUID {
    /// RFC 4122 §4.3's URL namespace, 6ba7b811-9dad-11d1-80b4-00c04fd430c8.
    package static let urlNamespace = UUID(uuidString: "6BA7B811-9DAD-11D1-80B4-00C04FD430C8")!

    /// A name-based UUID, version 5 (SHA-1), as RFC 4122 §4.3 defines it: the same name in the
    /// same namespace always gives the same UUID.
    ///
    ///     UUID(version5: "https://example.com/a.jpg", namespace: .urlNamespace)
    ///     // 0AF39F86-695F-5B4F-8503-15EF9F8EA23C
    package init(version5 name: String, namespace: UUID = .urlNamespace) {
        var hasher = SHA1()
        withUnsafeBytes(of: namespace.uuid) { hasher.update($0) }
        hasher.update(Data(name.utf8))
        var bytes = Array(hasher.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        self.init(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
