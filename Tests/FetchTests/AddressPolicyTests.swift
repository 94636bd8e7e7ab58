import Testing

@testable import Fetch

@Suite("Address classifier")
struct AddressPolicyTests {
    @Test(arguments: [
        ("127.0.0.1", "loopback, 127.0.0.0/8"),
        ("127.255.1.2", "loopback, 127.0.0.0/8"),
        ("0.0.0.0", "this network, 0.0.0.0/8"),
        ("10.1.2.3", "private (RFC 1918), 10.0.0.0/8"),
        ("172.16.0.1", "private (RFC 1918), 172.16.0.0/12"),
        ("172.31.255.255", "private (RFC 1918), 172.16.0.0/12"),
        ("192.168.1.1", "private (RFC 1918), 192.168.0.0/16"),
        ("169.254.169.254", "link-local (cloud metadata), 169.254.169.254/32"),
        ("169.254.1.1", "link-local, 169.254.0.0/16"),
        ("100.64.0.1", "carrier-grade NAT (RFC 6598), 100.64.0.0/10"),
        ("100.127.255.255", "carrier-grade NAT (RFC 6598), 100.64.0.0/10"),
        ("224.0.0.1", "multicast, 224.0.0.0/4"),
        ("239.255.255.250", "multicast, 224.0.0.0/4"),
        ("240.0.0.1", "reserved, 240.0.0.0/4"),
        ("255.255.255.255", "broadcast, 255.255.255.255/32"),
        ("192.0.0.8", "IETF protocol assignments, 192.0.0.0/24"),
        ("192.0.2.1", "documentation (TEST-NET-1), 192.0.2.0/24"),
        ("198.18.0.1", "benchmarking, 198.18.0.0/15"),
        ("198.19.255.1", "benchmarking, 198.18.0.0/15"),
        ("198.51.100.7", "documentation (TEST-NET-2), 198.51.100.0/24"),
        ("203.0.113.9", "documentation (TEST-NET-3), 203.0.113.0/24"),
        ("::1", "loopback, ::1/128"),
        ("::", "unspecified, ::/128"),
        ("fc00::1", "unique local (ULA), fc00::/7"),
        ("fd12:3456::1", "unique local (ULA), fc00::/7"),
        ("fe80::1", "link-local, fe80::/10"),
        ("ff02::1", "multicast, ff00::/8"),
        ("2001:db8::1", "documentation, 2001:db8::/32"),
        ("::ffff:127.0.0.1", "loopback, 127.0.0.0/8 via IPv4-mapped ::ffff:0:0/96"),
        ("::ffff:7f00:1", "loopback, 127.0.0.0/8 via IPv4-mapped ::ffff:0:0/96"),
        ("::ffff:169.254.169.254", "link-local (cloud metadata), 169.254.169.254/32 via IPv4-mapped ::ffff:0:0/96"),
        ("::ffff:10.0.0.1", "private (RFC 1918), 10.0.0.0/8 via IPv4-mapped ::ffff:0:0/96"),
        ("::ffff:0.0.0.0", "this network, 0.0.0.0/8 via IPv4-mapped ::ffff:0:0/96"),
        ("::127.0.0.1", "loopback, 127.0.0.0/8 via IPv4-compatible ::/96"),
        ("::8.8.8.8", "IPv4-compatible (deprecated), ::/96"),
        ("64:ff9b::127.0.0.1", "loopback, 127.0.0.0/8 via NAT64 64:ff9b::/96"),
        ("64:ff9b::192.168.0.1", "private (RFC 1918), 192.168.0.0/16 via NAT64 64:ff9b::/96"),
        ("64:ff9b:1::1", "local-use NAT64 (RFC 8215), 64:ff9b:1::/48"),
        ("2002:7f00:1::", "loopback, 127.0.0.0/8 via 6to4 2002::/16"),
        ("[::1]", "loopback, ::1/128"),
    ])
    func refusesNonPublic(address: String, rule: String) throws {
        let parsed = try #require(IPAddress(address))
        #expect(AddressPolicy.classify(parsed)?.description == rule)
    }

    @Test(arguments: [
        "8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "172.15.255.255", "100.128.0.1", "100.63.255.255",
        "169.253.255.255", "192.169.0.1", "11.0.0.1", "223.255.255.255", "2606:4700:4700::1111",
        "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:808:808::",
    ])
    func allowsPublic(address: String) throws {
        let parsed = try #require(IPAddress(address))
        #expect(AddressPolicy.classify(parsed) == nil)
    }

    @Test(arguments: ["", "localhost", "2130706433", "1.2.3", "256.1.1.1", "::ffff:1.2.3.4.5", "[::1", "fe80::1%eth0"])
    func unparseableTextIsNotPublic(text: String) {
        #expect(IPAddress(text) == nil)
        #expect(AddressPolicy.classify(text) != nil)
    }

    @Test func bytesRoundTrip() throws {
        #expect(IPAddress(bytes: [127, 0, 0, 1]) == IPAddress("127.0.0.1"))
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
        let v6 = try #require(IPAddress("::ffff:127.0.0.1"))
        #expect(v6.description == "::ffff:127.0.0.1")
        #expect(IPAddress("10.20.30.40")?.description == "10.20.30.40")
    }

    @Test func policyExemptionsAndSwitch() throws {
        var policy = FetchPolicy()
        let loopback = try #require(IPAddress("127.0.0.1"))
        #expect(policy.refusal(address: loopback, port: 8080)?.purpose == "loopback")
        policy.allowedPrivateAddressesForTesting = ["127.0.0.1:8080", "[::1]:8080"]
        #expect(policy.refusal(address: loopback, port: 8080) == nil)
        #expect(policy.refusal(address: loopback, port: 8081) != nil)
        #expect(policy.refusal(address: try #require(IPAddress("::1")), port: 8080) == nil)
        policy.allowedPrivateAddressesForTesting = []
        policy.allowPrivateNetworks = true
        #expect(policy.refusal(address: loopback, port: 1) == nil)
    }

    @Test func hostPatterns() {
        var policy = FetchPolicy()
        #expect(policy.allows(host: "anything.example"))
        policy.allowedHosts = ["*.example.com", "cdn.other.net"]
        #expect(policy.allows(host: "img.example.com"))
        #expect(policy.allows(host: "a.b.EXAMPLE.com."))
        #expect(!policy.allows(host: "example.com"))
        #expect(!policy.allows(host: "evilexample.com"))
        #expect(policy.allows(host: "CDN.other.net"))
        #expect(!policy.allows(host: "x.cdn.other.net"))
    }
}
