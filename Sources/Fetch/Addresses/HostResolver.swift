#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The addresses a host name resolves to here, by the system resolver (`getaddrinfo`: the hosts
/// file, DNS, and the numeric forms `inet_aton` takes, such as `127.1`).
///
///     HostResolver.addresses(of: "localhost")   // .success([127.0.0.1, ::1]) on most machines
///
/// The fetch layer resolves a target itself only when a proxy will connect to it: libcurl then
/// connects to the proxy alone, so the socket guard never sees the target's address.
package enum HostResolver {
    /// Every address of `host` (an IP literal, bracketed or not, is its own answer), or the
    /// resolver's reason when it has none.
    package static func addresses(of host: String) -> Result<[IPAddress], Failure> {
        var name = host
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if let literal = IPAddress(name) { return .success([literal]) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(name, nil, &hints, &found)
        guard status == 0 else { return .failure(Failure(host: host, message: String(cString: gai_strerror(status)))) }
        defer { freeaddrinfo(found) }
        var addresses: [IPAddress] = []
        var entry = found
        while let current = entry {
            if let address = IPAddress(socketAddress: current.pointee.ai_addr), !addresses.contains(address) {
                addresses.append(address)
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(Failure(host: host, message: "no address")) }
        return .success(addresses)
    }

    /// Why a name did not resolve: the resolver's own words.
    package struct Failure: Error, Sendable, Hashable {
        package var host: String
        package var message: String
    }
}

extension IPAddress {
    /// The address of an IPv4 or IPv6 socket address; nil for any other family.
    init?(socketAddress: UnsafePointer<sockaddr>?) {
        guard let socketAddress else { return nil }
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let value = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            self = .v4(UInt32(bigEndian: value))
        case AF_INET6:
            let bytes = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
            self = .v6(bytes)
        default:
            return nil
        }
    }
}
