import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback HTTP/1.1 client for tests, on POSIX sockets: any number of requests at once, each
/// on its own connection (`Connection: close`, so the end of the answer is the end of the
/// stream), driven by one `poll` loop on the calling thread.
///
///     let answer = try TestHTTPClient.get(port: server.port, path: "/healthz")
///     let herd = TestHTTPClient.getMany(port: server.port, path: link, count: 1000)
public enum TestHTTPClient {
    /// A parsed answer.
    public struct Response: Sendable {
        public var status: Int
        /// Lower-cased names.
        public var headers: [String: String]
        public var body: Data
        /// From the connect to the last byte.
        public var elapsed: Duration
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// One request; throws when the connection fails or the answer does not parse.
    public static func get(
        port: Int, path: String, method: String = "GET", headers: [(String, String)] = [], host: String = "127.0.0.1",
        timeout: Duration = .seconds(60)
    ) throws -> Response {
        try getMany(port: port, path: path, count: 1, method: method, headers: headers, host: host, timeout: timeout)[0]
            .get()
    }

    /// `count` requests for `path` at once, each on its own connection.
    public static func getMany(
        port: Int, path: String, count: Int, method: String = "GET", headers: [(String, String)] = [],
        host: String = "127.0.0.1", timeout: Duration = .seconds(120)
    ) -> [Result<Response, Failure>] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let request = Array((head + "\r\n").utf8)
        var calls = (0..<count).map { _ in Call(request: request) }
        let deadline = ContinuousClock.now + timeout
        for index in calls.indices { calls[index].connect(host: host, port: port) }
        while calls.contains(where: { !$0.isFinished }) {
            if ContinuousClock.now > deadline {
                for index in calls.indices where !calls[index].isFinished { calls[index].fail("timed out") }
                break
            }
            var polls = calls.indices.filter { !calls[$0].isFinished }.map { index in
                pollfd(fd: calls[index].fd, events: Int16(calls[index].sent < request.count ? POLLOUT : POLLIN), revents: 0)
            }
            let open = calls.indices.filter { !calls[$0].isFinished }
            guard poll(&polls, nfds_t(polls.count), 100) >= 0 || errno == EINTR else { break }
            for (slot, index) in open.enumerated() where polls[slot].revents != 0 { calls[index].step() }
        }
        return calls.map(\.result)
    }

    /// A connected blocking socket to `host`:`port` (the caller sends, reads and closes), for
    /// tests of how a server treats slow or idle clients.
    public static func connect(port: Int, host: String = "127.0.0.1") throws -> Int32 {
        var call = Call(request: [])
        call.connect(host: host, port: port)
        if case .failure(let failure) = call.outcome { throw failure }
        var writable = pollfd(fd: call.fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&writable, 1, 5000) == 1 else {
            close(call.fd)
            throw Failure(description: "connect to \(host):\(port) timed out")
        }
        let flags = fcntl(call.fd, F_GETFL)
        _ = fcntl(call.fd, F_SETFL, flags & ~O_NONBLOCK)
        return call.fd
    }

    /// Waits up to `timeout` (`.zero`: looks once, without waiting) for `fd` to be closed by the
    /// peer, woken by the socket: true when a read returns 0 or fails.
    public static func isClosedByPeer(_ fd: Int32, within timeout: Duration) -> Bool {
        let end = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        repeat {
            let left = max(.zero, end - ContinuousClock.now)
            var readable = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&readable, 1, Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000, 60_000)))
            if ready == 1 {
                let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return true }
            }
        } while ContinuousClock.now < end
        return false
    }

    /// Sends `request` on the connected socket `fd` and reads one answer (its head, then as many
    /// body bytes as its Content-Length says): the answer's text, or what was read before the
    /// peer closed. For a connection the test keeps open across requests.
    public static func exchange(_ fd: Int32, _ request: String) -> String {
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator = Array("\r\n\r\n".utf8)
        while true {
            if let end = received.firstRange(of: terminator) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count >= end.upperBound + length { break }
            }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// A slow client: sends `bytes` on `fd` one at a time, `interval` apart, calling `sent` after
    /// each, until all are sent or a send fails (the server closed the connection).
    public static func trickle(_ bytes: [UInt8], on fd: Int32, every interval: Duration, sent: () -> Void) {
        for byte in bytes {
            var one = byte
            guard send(fd, &one, 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
            sent()
            // The slow peer's pace.
            Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
        }
    }

    private struct Call {
        let request: [UInt8]
        var fd: Int32 = -1
        var sent = 0
        var received: [UInt8] = []
        var started = ContinuousClock.now
        var outcome: Result<Response, Failure>?

        init(request: [UInt8]) { self.request = request }

        var isFinished: Bool { outcome != nil }
        var result: Result<Response, Failure> { outcome ?? .failure(Failure(description: "not finished")) }

        mutating func fail(_ reason: String) {
            if fd >= 0 { close(fd) }
            fd = -1
            outcome = .failure(Failure(description: reason))
        }

        mutating func connect(host: String, port: Int) {
            let isV6 = host.contains(":")
            fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { return fail("socket: \(String(cString: strerror(errno)))") }
            started = ContinuousClock.now
            var status: Int32
            if isV6 {
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = UInt16(port).bigEndian
                inet_pton(AF_INET6, host, &address.sin6_addr)
                status = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                    }
                }
            } else {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = UInt16(port).bigEndian
                inet_pton(AF_INET, host, &address.sin_addr)
                status = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            if status != 0, errno != EINPROGRESS { fail("connect: \(String(cString: strerror(errno)))") }
        }

        mutating func step() {
            if sent < request.count {
                let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count > 0 { sent += count } else if errno != EAGAIN { fail("send: \(String(cString: strerror(errno)))") }
                return
            }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = read(fd, &buffer, buffer.count)
            if count > 0 {
                received += buffer[..<count]
            } else if count == 0 {
                finish()
            } else if errno != EAGAIN {
                fail("read: \(String(cString: strerror(errno)))")
            }
        }

        mutating func finish() {
            close(fd)
            fd = -1
            guard let end = received.firstRange(of: Array("\r\n\r\n".utf8)) else {
                return outcome = .failure(Failure(description: "no response head in \(received.count) bytes"))
            }
            let lines = String(decoding: received[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let parts = lines[0].split(separator: " ")
            guard parts.count >= 2, let status = Int(parts[1]) else {
                return outcome = .failure(Failure(description: "bad status line '\(lines[0])'"))
            }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            outcome = .success(
                Response(
                    status: status, headers: headers, body: Data(received[end.upperBound...]),
                    elapsed: ContinuousClock.now - started))
        }
    }
}
