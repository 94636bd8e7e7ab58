import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A forward HTTP proxy on loopback, for tests: it records every request it is asked, relays a
/// GET for a loopback origin to it, answers for the hosts it was told to answer for itself, and
/// refuses everything else (a CONNECT, any other host) with 403, so it never connects off the
/// machine. One request per connection (`Connection: close`).
///
///     let proxy = try TestForwardProxy()
///     defer { proxy.stop() }
///     proxy.answer(host: "93.184.216.34", with: jpeg, contentType: "image/jpeg")
///     policy.proxy = proxy.url
///     // … fetch "http://93.184.216.34/cat.jpg" …
///     proxy.requests   // [("GET", "http://93.184.216.34/cat.jpg")]
public final class TestForwardProxy: @unchecked Sendable {
    /// One request the proxy was asked: its method and target as sent (an absolute URL for a
    /// GET, `host:port` for a CONNECT).
    public struct Request: Sendable, Hashable {
        public var method: String
        public var target: String

        public init(method: String, target: String) {
            self.method = method
            self.target = target
        }
    }

    /// `http://127.0.0.1:PORT`.
    public let url: URL
    public let port: Int

    private let listener: Int32
    private let lock = NSLock()
    private var seen: [Request] = []
    private var answers: [String: (Data, String)] = [:]
    private var stopped = false
    private var clients: Set<Int32> = []
    private let group = DispatchGroup()

    /// Binds 127.0.0.1 on an ephemeral port and starts accepting.
    public init() throws {
        (listener, port) = try TestHTTPServer.listen(on: "127.0.0.1")
        url = URL(string: "http://127.0.0.1:\(port)")!
        group.enter()
        let thread = Thread { [self] in
            acceptLoop()
            group.leave()
        }
        thread.name = "TestForwardProxy.accept"
        thread.start()
    }

    deinit { stop() }

    /// Every request asked so far, in order.
    public var requests: [Request] { lock.withLock { seen } }

    /// Answers a GET for `host` (any port, any path) itself with 200 and `body`, without
    /// connecting anywhere: a stand-in for a public origin.
    public func answer(host: String, with body: Data, contentType: String) {
        lock.withLock { answers[host.lowercased()] = (body, contentType) }
    }

    /// Stops accepting, breaks open connections and waits for their threads. Safe to call twice.
    public func stop() {
        let first: Bool = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        _ = Glibc.shutdown(listener, Int32(SHUT_RDWR))
        lock.withLock { for fd in clients { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) } }
        _ = group.wait(timeout: .now() + 30)
        close(listener)
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while !isStopped {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let admitted: Bool = lock.withLock {
                guard !stopped else { return false }
                clients.insert(client)
                return true
            }
            guard admitted else {
                close(client)
                break
            }
            group.enter()
            let thread = Thread { [self] in
                serve(client)
                lock.withLock { _ = clients.remove(client) }
                close(client)
                group.leave()
            }
            thread.name = "TestForwardProxy.connection"
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        guard let head = Self.readHead(client) else { return }
        var lines = head.components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ").map(String.init) ?? []
        guard parts.count == 3 else { return }
        let request = Request(method: parts[0], target: parts[1])
        lock.withLock { seen.append(request) }
        guard request.method == "GET", let target = URLComponents(string: request.target),
            let host = target.host?.lowercased()
        else {
            Self.send(client, Self.response(403, "text/plain", Data("this proxy opens no tunnel\n".utf8)))
            return
        }
        if let (body, type) = lock.withLock({ answers[host] }) {
            Self.send(client, Self.response(200, type, body))
            return
        }
        guard host == "127.0.0.1", let port = target.port else {
            Self.send(client, Self.response(403, "text/plain", Data("this proxy reaches loopback only\n".utf8)))
            return
        }
        // Relay in origin form, one request per connection.
        let path = target.percentEncodedPath.isEmpty ? "/" : target.percentEncodedPath
        let query = target.percentEncodedQuery.map { "?" + $0 } ?? ""
        lines[0] = "GET \(path)\(query) HTTP/1.1"
        lines.removeAll { $0.lowercased().hasPrefix("proxy-connection:") || $0.lowercased().hasPrefix("connection:") }
        lines.append("Connection: close")
        let origin = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard origin >= 0 else { return }
        defer { close(origin) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(origin, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Self.send(client, Self.response(502, "text/plain", Data("origin unreachable\n".utf8)))
            return
        }
        Self.send(origin, Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8))
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(origin, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            Self.send(client, Data(chunk[..<count]))
        }
    }

    private static func readHead(_ fd: Int32) -> String? {
        let terminator = Array("\r\n\r\n".utf8)
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while buffer.count < 65536 {
            if let end = buffer.firstRange(of: terminator) {
                return String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
            }
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
        return nil
    }

    private static func response(_ status: Int, _ type: String, _ body: Data) -> Data {
        let head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Refused")\r\nContent-Type: \(type)\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Data(head.utf8) + body
    }

    private static func send(_ fd: Int32, _ data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { return }
                offset += sent
            }
        }
    }
}
