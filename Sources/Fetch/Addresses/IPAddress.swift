#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address as raw network-order bytes.
///
///     IPAddress("::ffff:127.0.0.1")   // .v6([0, …, 0xff, 0xff, 127, 0, 0, 1])
///     IPAddress("10.1.2.3")?.description   // "10.1.2.3"
package enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// Four bytes, most significant first.
    case v4(UInt32)
    /// Sixteen bytes, network order.
    case v6([UInt8])

    /// Parses the textual forms `inet_pton` accepts (dotted quad, RFC 4291 IPv6),
    /// tolerating brackets around an IPv6 address. Returns nil for anything else.
    package init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("[") && text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        var v4 = in_addr()
        if inet_pton(AF_INET, String(text), &v4) == 1 {
            self = .v4(UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = [UInt8](repeating: 0, count: 16)
        let ok = v6.withUnsafeMutableBytes { inet_pton(AF_INET6, String(text), $0.baseAddress) }
        guard ok == 1 else { return nil }
        self = .v6(v6)
    }

    /// Builds an address from network-order bytes: 4 for IPv4, 16 for IPv6.
    package init?(bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        switch bytes.count {
        case 4: self = .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) })
        case 16: self = .v6(bytes)
        default: return nil
        }
    }

    package var description: String {
        switch self {
        case .v4(let value):
            return "\(value >> 24).\(value >> 16 & 0xff).\(value >> 8 & 0xff).\(value & 0xff)"
        case .v6(let bytes):
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let text = bytes.withUnsafeBytes { raw in
                inet_ntop(AF_INET6, raw.baseAddress, &buffer, socklen_t(buffer.count))
            }
            guard text != nil else { return "invalid IPv6 address" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
