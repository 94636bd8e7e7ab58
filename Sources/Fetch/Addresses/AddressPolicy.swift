/// A reason an address is not on the public internet: the range's purpose and its CIDR.
///
///     AddressPolicy.classify(IPAddress("127.0.0.1")!)?.description   // "loopback, 127.0.0.0/8"
package struct AddressRule: Sendable, Hashable, CustomStringConvertible {
    /// What the range is for, e.g. "loopback" or "link-local (cloud metadata)".
    package var purpose: String
    /// The range, e.g. "127.0.0.0/8".
    package var range: String
    /// How an IPv6 address embeds the IPv4 one, e.g. "IPv4-mapped ::ffff:0:0/96"; nil when direct.
    package var via: String?

    package var description: String {
        via.map { "\(purpose), \(range) via \($0)" } ?? "\(purpose), \(range)"
    }
}

/// The connect-time SSRF classifier: which addresses are private, local, or reserved.
///
///     AddressPolicy.classify("169.254.169.254")   // link-local (cloud metadata), 169.254.0.0/16
///     AddressPolicy.classify("::ffff:10.0.0.1")   // private (RFC 1918), 10.0.0.0/8 via IPv4-mapped
///     AddressPolicy.classify("93.184.216.34")     // nil: public
///
/// A pure function: the fetch layer calls it for every socket libcurl opens.
package enum AddressPolicy {
    /// The rule that makes `address` non-public, or nil when it is a public address.
    package static func classify(_ address: IPAddress) -> AddressRule? {
        switch address {
        case .v4(let value): return classifyV4(value)
        case .v6(let bytes): return classifyV6(bytes)
        }
    }

    /// Parses then classifies; text that is not an IP address is classified as unparseable.
    package static func classify(_ text: String) -> AddressRule? {
        guard let address = IPAddress(text) else {
            return AddressRule(purpose: "not an IP address", range: text, via: nil)
        }
        return classify(address)
    }

    private struct V4Range {
        let base: UInt32
        let bits: UInt32
        let purpose: String
        func contains(_ value: UInt32) -> Bool {
            let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
            return value & mask == base & mask
        }
        var cidr: String { "\(IPAddress.v4(base))/\(bits)" }
    }

    private static func v4(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ bits: UInt32, _ purpose: String)
        -> V4Range
    {
        V4Range(base: a << 24 | b << 16 | c << 8 | d, bits: bits, purpose: purpose)
    }

    /// Most specific first, so 169.254.169.254 is named as cloud metadata.
    private static let v4Ranges: [V4Range] = [
        v4(255, 255, 255, 255, 32, "broadcast"),
        v4(169, 254, 169, 254, 32, "link-local (cloud metadata)"),
        v4(0, 0, 0, 0, 8, "this network"),
        v4(10, 0, 0, 0, 8, "private (RFC 1918)"),
        v4(100, 64, 0, 0, 10, "carrier-grade NAT (RFC 6598)"),
        v4(127, 0, 0, 0, 8, "loopback"),
        v4(169, 254, 0, 0, 16, "link-local"),
        v4(172, 16, 0, 0, 12, "private (RFC 1918)"),
        v4(192, 0, 0, 0, 24, "IETF protocol assignments"),
        v4(192, 0, 2, 0, 24, "documentation (TEST-NET-1)"),
        v4(192, 88, 99, 0, 24, "6to4 relay anycast"),
        v4(192, 168, 0, 0, 16, "private (RFC 1918)"),
        v4(198, 18, 0, 0, 15, "benchmarking"),
        v4(198, 51, 100, 0, 24, "documentation (TEST-NET-2)"),
        v4(203, 0, 113, 0, 24, "documentation (TEST-NET-3)"),
        v4(224, 0, 0, 0, 4, "multicast"),
        v4(240, 0, 0, 0, 4, "reserved"),
    ]

    private static func classifyV4(_ value: UInt32) -> AddressRule? {
        guard let range = v4Ranges.first(where: { $0.contains(value) }) else { return nil }
        return AddressRule(purpose: range.purpose, range: range.cidr, via: nil)
    }

    private struct V6Range {
        let prefix: [UInt8]
        let bits: Int
        let purpose: String
        let cidr: String
        func contains(_ bytes: [UInt8]) -> Bool {
            var remaining = bits
            var index = 0
            while remaining > 0 {
                let take = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xff << (8 - take))
                if bytes[index] & mask != prefix[index] & mask { return false }
                remaining -= take
                index += 1
            }
            return true
        }
    }

    private static func v6(_ text: String, _ bits: Int, _ purpose: String) -> V6Range {
        guard case .v6(let bytes)? = IPAddress(text) else { preconditionFailure("bad IPv6 literal \(text)") }
        return V6Range(prefix: bytes, bits: bits, purpose: purpose, cidr: "\(text)/\(bits)")
    }

    private static let v6Ranges: [V6Range] = [
        v6("::1", 128, "loopback"),
        v6("::", 128, "unspecified"),
        v6("64:ff9b:1::", 48, "local-use NAT64 (RFC 8215)"),
        v6("100::", 64, "discard-only"),
        v6("2001::", 32, "Teredo"),
        v6("2001:2::", 48, "benchmarking"),
        v6("2001:10::", 28, "ORCHID"),
        v6("2001:20::", 28, "ORCHIDv2"),
        v6("2001:db8::", 32, "documentation"),
        v6("3fff::", 20, "documentation"),
        v6("5f00::", 16, "segment routing (SRv6) SIDs"),
        v6("fc00::", 7, "unique local (ULA)"),
        v6("fe80::", 10, "link-local"),
        v6("fec0::", 10, "site-local (deprecated)"),
        v6("ff00::", 8, "multicast"),
    ]

    /// IPv6 forms that carry an IPv4 address, and where it sits.
    private static let embeddings: [(range: V6Range, offset: Int, name: String)] = [
        (v6("::ffff:0:0", 96, "IPv4-mapped"), 12, "IPv4-mapped ::ffff:0:0/96"),
        (v6("::ffff:0:0:0", 96, "IPv4-translated"), 12, "IPv4-translated ::ffff:0:0:0/96"),
        (v6("64:ff9b::", 96, "NAT64"), 12, "NAT64 64:ff9b::/96"),
        (v6("2002::", 16, "6to4"), 2, "6to4 2002::/16"),
        (v6("::", 96, "IPv4-compatible"), 12, "IPv4-compatible ::/96"),
    ]

    private static func classifyV6(_ bytes: [UInt8]) -> AddressRule? {
        guard bytes.count == 16 else { return AddressRule(purpose: "malformed IPv6", range: "\(bytes.count) bytes") }
        if let range = v6Ranges.first(where: { $0.contains(bytes) }) {
            return AddressRule(purpose: range.purpose, range: range.cidr, via: nil)
        }
        for embedding in embeddings where embedding.range.contains(bytes) {
            let value = bytes[embedding.offset..<embedding.offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if var rule = classifyV4(value) {
                rule.via = embedding.name
                return rule
            }
            // An IPv4-compatible address is deprecated; nothing public should use it.
            if embedding.range.bits == 96 && embedding.offset == 12 && embedding.name.hasPrefix("IPv4-compatible") {
                return AddressRule(purpose: "IPv4-compatible (deprecated)", range: "::/96")
            }
            return nil
        }
        return nil
    }
}

extension AddressRule {
    init(purpose: String, range: String) { self.init(purpose: purpose, range: range, via: nil) }
}
