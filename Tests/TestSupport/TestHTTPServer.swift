import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An in-process HTTP/1.1 server on POSIX sockets, for tests: loopback only, an ephemeral
/// port, one thread per connection, keep-alive for plain responses.
///
///     let server = try TestHTTPServer()
///     defer { server.stop() }
///     server.route("/cat.jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") }
///     let url = server.url("/redirect/3/cat.jpg")
///
/// Built-in routes (a `route` with the same path wins):
/// - `/ok`: 200 text/plain "hello, world\n"
/// - `/bytes?size=N&type=T`: N patterned bytes with Content-Type T (`type=none` sends none)
/// - `/status/N`: status N with a short text body
/// - `/redirect/N/REST`: N redirects in a row, then `/REST` (`/ok` when empty)
/// - `/redirect-to?url=U`: 302 to U (percent-encode U)
/// - `/drip?bytes=N&ms=X`: Content-Length N, one byte every X ms
/// - `/endless`: no Content-Length, bytes until the client goes away
/// - `/lying/short?declared=N&actual=M`: Content-Length N, M > N bytes sent
/// - `/lying/long?declared=N&actual=M`: Content-Length N, M < N bytes sent, then close
/// - `/reset?bytes=N`: declares 2N, sends N, then resets the connection (SO_LINGER 0)
/// - `/flaky/KEY?fail=K&status=S`: status S (default 500) for the first K hits, then 200
/// - `/retry-after/KEY?seconds=S`: 429 with Retry-After S on the first hit, then 200
/// - `/disposition?name=NAME&type=T`: 200 with `Content-Disposition: attachment; filename="NAME"`
///   (default `../../etc/passwd`)
///
/// Held routes put the test, not the clock, in charge of when a response completes:
///
///     let gate = server.hold("/slow.jpg", .bytes(jpeg, contentType: "image/jpeg"))
///     let task = Task { try await client.fetch(server.url("/slow.jpg")) }
///     _ = await gate.wait { $0.waiting == 1 }   // the request is at the server, held
///     gate.open()                               // now it completes
public final class TestHTTPServer: @unchecked Sendable {
    /// A parsed request.
    public struct Request: Sendable {
        public var method: String
        /// The path without the query, percent-decoding not applied.
        public var path: String
        public var query: [String: String]
        /// Lowercased names.
        public var headers: [String: String]
        /// How many times this path was hit, this request included.
        public var hit: Int
    }

    /// What to send back.
    public struct Response: Sendable {
        public enum Body: Sendable {
            /// Content-Length and the bytes.
            case bytes(Data)
            /// Content-Length, then one byte per interval.
            case drip(Data, every: Duration)
            /// No Content-Length; chunks of zeros until the client or the server stops.
            case endless
            /// Content-Length `declared`, then `actual` (longer or shorter), then close.
            case declaredLength(Int, actual: Data)
            /// Content-Length twice the prefix, the prefix, then an RST.
            case resetAfter(Data)
            /// Content-Length, the first `first` bytes, then nothing until `gate` lets the
            /// request pass (or the server stops), then the rest and close.
            case held(Data, first: Int, gate: Gate)
            /// Nothing at all (no status line) for `delay`, then the response: an origin slow to
            /// its first byte, for a client's timers to run against.
            case firstByteAfter(Data, delay: Duration)
        }

        public var status: Int
        public var headers: [(String, String)]
        public var body: Body

        public init(status: Int, headers: [(String, String)] = [], body: Body = .bytes(Data())) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// 200 with `data` and a Content-Type (none when nil).
        public static func bytes(
            _ data: Data, contentType: String? = "application/octet-stream",
            status: Int = 200
        ) -> Response {
            Response(status: status, headers: contentType.map { [("Content-Type", $0)] } ?? [], body: .bytes(data))
        }

        /// 200 with a file's bytes (a 404 when unreadable).
        public static func file(_ url: URL, contentType: String?) -> Response {
            guard let data = try? Data(contentsOf: url) else { return .text("no such file", status: 404) }
            return .bytes(data, contentType: contentType)
        }

        public static func text(_ text: String, status: Int = 200) -> Response {
            .bytes(Data(text.utf8), contentType: "text/plain; charset=utf-8", status: status)
        }

        public static func redirect(to location: String, status: Int = 302) -> Response {
            Response(status: status, headers: [("Location", location)], body: .bytes(Data("redirect\n".utf8)))
        }
    }

    public typealias Handler = @Sendable (Request) -> Response

    /// The bound address, `127.0.0.1` or `::1`.
    public let host: String
    public let port: Int

    private let listener: Int32
    private let lock = NSLock()
    private var routes: [String: Handler] = [:]
    private var hitCounts: [String: Int] = [:]
    private var clients: Set<Int32> = []
    private var stopped = false
    private var accepted = 0
    private var gates: [Gate] = []
    private let group = DispatchGroup()

    /// Binds `host` (an IPv4 or IPv6 loopback literal) on an ephemeral port and starts accepting.
    public init(host: String = "127.0.0.1") throws {
        self.host = host
        let (fd, port) = try Self.listen(on: host)
        self.listener = fd
        self.port = port
        group.enter()
        let thread = Thread { [self] in
            acceptLoop()
            group.leave()
        }
        thread.name = "TestHTTPServer.accept"
        thread.start()
    }

    deinit { stop() }

    /// `http://HOST:PORT` + `path`.
    public func url(_ path: String) -> String {
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return "http://\(authority)\(path.hasPrefix("/") ? path : "/" + path)"
    }

    /// Serves `path` (exact, no query) with `handler`.
    public func route(_ path: String, _ handler: @escaping Handler) {
        lock.withLock { routes[path] = handler }
    }

    /// Serves `path` with `response`, but holds every request at `gate` until the test lets it
    /// pass (`gate.release()`, `gate.open()`) or the server stops: the route never completes on
    /// its own. With `sendingFirst` nil nothing is sent while held; with a count, the status
    /// line, the headers (Content-Length: the whole body) and that many body bytes are sent
    /// first, so the request is held mid-body. `gate` counts the requests that reached it.
    @discardableResult
    public func hold(
        _ path: String, gate: Gate = Gate(), sendingFirst prefix: Int? = nil,
        _ response: Response = .bytes(TestHTTPServer.pattern(1000))
    ) -> Gate {
        let stopped: Bool = lock.withLock {
            if !gates.contains(where: { $0 === gate }) { gates.append(gate) }
            return self.stopped
        }
        if stopped { gate.open() }
        route(path) { _ in
            guard let prefix, case .bytes(let data) = response.body else {
                gate.pass()
                return response
            }
            var held = response
            held.body = .held(data, first: min(max(0, prefix), data.count), gate: gate)
            return held
        }
        return gate
    }

    /// Whether `::1` can be bound here (some containers and CI machines have no IPv6 loopback).
    public static let ipv6LoopbackAvailable: Bool = {
        guard let (fd, _) = try? listen(on: "::1") else { return false }
        close(fd)
        return true
    }()

    /// TCP connections accepted so far (fewer than requests when clients keep them alive).
    public var connectionsAccepted: Int { lock.withLock { accepted } }

    /// Requests seen for `path` so far.
    public func hits(_ path: String) -> Int { lock.withLock { hitCounts[path, default: 0] } }

    /// Stops accepting, breaks every open connection (even one mid-drip or held), lets every
    /// held request go (sending nothing more) and waits for the connection threads to finish.
    /// Safe to call more than once. False when a thread was still running after 30 s (it is
    /// left behind); true otherwise, also when the server was already stopped.
    @discardableResult
    public func stop() -> Bool {
        let held: [Gate]? = lock.withLock {
            guard !stopped else { return nil }
            stopped = true
            return gates
        }
        guard let held else { return true }
        _ = Glibc.shutdown(listener, Int32(SHUT_RDWR))
        lock.withLock { for fd in clients { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) } }
        for gate in held { gate.open() }
        let finished = group.wait(timeout: .now() + 30) == .success
        close(listener)
        return finished
    }

    var isStopped: Bool { lock.withLock { stopped } }

    // MARK: Sockets

    static func listen(on host: String) throws -> (Int32, Int) {
        let isV6 = host.contains(":")
        let fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError.system("socket", errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var bound: Int32
        if isV6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = 0
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
                close(fd)
                throw ServerError.badHost(host)
            }
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
                close(fd)
                throw ServerError.badHost(host)
            }
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw ServerError.system("bind \(host)", code)
        }
        guard Glibc.listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw ServerError.system("listen", code)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port: UInt16 = withUnsafePointer(to: &storage) { pointer in
            isV6
                ? pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
                : pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
        }
        return (fd, Int(UInt16(bigEndian: port)))
    }

    private func acceptLoop() {
        while !isStopped {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            guard ready > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let admitted: Bool = lock.withLock {
                guard !stopped else { return false }
                clients.insert(client)
                accepted += 1
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
            thread.name = "TestHTTPServer.connection"
            thread.start()
        }
    }

    // MARK: HTTP

    private func serve(_ fd: Int32) {
        var buffer: [UInt8] = []
        while !isStopped {
            guard let request = readRequest(fd, buffer: &buffer) else { return }
            let response = respond(to: request)
            guard write(response, to: fd) else { return }
            if request.headers["connection"]?.lowercased() == "close" { return }
        }
    }

    private func readRequest(_ fd: Int32, buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = buffer.firstRange(of: terminator) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<end.upperBound)
                return parse(head)
            }
            guard buffer.count < 65536 else { return nil }
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    private func parse(_ head: String) -> Request? {
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2 else { return nil }
        let target = String(parts[1])
        let path = String(target.prefix { $0 != "?" })
        var query: [String: String] = [:]
        if let items = URLComponents(string: "http://x" + target)?.queryItems {
            for item in items { query[item.name] = item.value ?? "" }
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let hit = lock.withLock {
            hitCounts[path, default: 0] += 1
            return hitCounts[path]!
        }
        return Request(method: String(parts[0]), path: path, query: query, headers: headers, hit: hit)
    }

    private func respond(to request: Request) -> Response {
        if let handler = lock.withLock({ routes[request.path] }) { return handler(request) }
        return Self.builtIn(request)
    }

    private static func builtIn(_ request: Request) -> Response {
        let components = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        func int(_ name: String, _ fallback: Int) -> Int { request.query[name].flatMap { Int($0) } ?? fallback }
        switch components.first {
        case "ok":
            return .text("hello, world\n")
        case "bytes":
            let type = request.query["type"] ?? "application/octet-stream"
            return .bytes(pattern(int("size", 1024)), contentType: type == "none" ? nil : type)
        case "status":
            let status = components.count > 1 ? Int(components[1]) ?? 500 : 500
            return .text("status \(status)\n", status: status)
        case "redirect" where components.count > 1:
            let hops = Int(components[1]) ?? 0
            let rest = components.dropFirst(2).joined(separator: "/")
            if hops <= 1 { return .redirect(to: "/" + (rest.isEmpty ? "ok" : rest)) }
            return .redirect(to: "/redirect/\(hops - 1)/" + rest)
        case "redirect-to":
            return .redirect(to: request.query["url"] ?? "/ok")
        case "drip":
            return Response(
                status: 200, headers: [("Content-Type", "application/octet-stream")],
                body: .drip(pattern(int("bytes", 100)), every: .milliseconds(int("ms", 100))))
        case "endless":
            return Response(status: 200, headers: [("Content-Type", "application/octet-stream")], body: .endless)
        case "lying":
            return Response(
                status: 200, headers: [("Content-Type", "application/octet-stream")],
                body: .declaredLength(int("declared", 10), actual: pattern(int("actual", 100))))
        case "reset":
            return Response(
                status: 200, headers: [("Content-Type", "application/octet-stream")],
                body: .resetAfter(pattern(int("bytes", 1000))))
        case "flaky":
            if request.hit <= int("fail", 1) { return .text("flaky failure\n", status: int("status", 500)) }
            return .text("ok after \(request.hit) hits\n")
        case "retry-after":
            if request.hit == 1 {
                var response = Response.text("slow down\n", status: 429)
                response.headers.append(("Retry-After", request.query["seconds"] ?? "1"))
                return response
            }
            return .text("ok after waiting\n")
        case "disposition":
            var response = Response.bytes(pattern(int("size", 256)), contentType: request.query["type"] ?? "image/jpeg")
            let name = request.query["name"] ?? "../../etc/passwd"
            response.headers.append(("Content-Disposition", "attachment; filename=\"\(name)\""))
            return response
        default:
            return .text("not found: \(request.path)\n", status: 404)
        }
    }

    /// Deterministic non-zero bytes.
    public static func pattern(_ count: Int) -> Data {
        Data((0..<max(0, count)).map { UInt8(truncatingIfNeeded: $0 % 251 + 1) })
    }

    /// Sends the response; false when the connection must close afterwards.
    private func write(_ response: Response, to fd: Int32) -> Bool {
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        switch response.body {
        case .bytes(let data):
            head += "Content-Length: \(data.count)\r\n\r\n"
            return send(fd, Data(head.utf8) + data)
        case .drip(let data, let interval):
            head += "Content-Length: \(data.count)\r\nConnection: close\r\n\r\n"
            guard send(fd, Data(head.utf8)) else { return false }
            for byte in data {
                // The slow peer: one byte per interval.
                guard sleep(interval), send(fd, Data([byte])) else { return false }
            }
            return false
        case .endless:
            head += "Connection: close\r\n\r\n"
            guard send(fd, Data(head.utf8)) else { return false }
            let chunk = Data(repeating: 0x5a, count: 64 * 1024)
            while !isStopped, send(fd, chunk) {}
            return false
        case .declaredLength(let declared, let actual):
            head += "Content-Length: \(declared)\r\nConnection: close\r\n\r\n"
            _ = send(fd, Data(head.utf8) + actual)
            return false
        case .resetAfter(let prefix):
            head += "Content-Length: \(prefix.count * 2)\r\nConnection: close\r\n\r\n"
            _ = send(fd, Data(head.utf8) + prefix)
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            return false
        case .firstByteAfter(let data, let delay):
            // The slow origin: its time to first byte is the point of the response.
            guard sleep(delay) else { return false }
            head += "Content-Length: \(data.count)\r\n\r\n"
            return send(fd, Data(head.utf8) + data)
        case .held(let data, let first, let gate):
            head += "Content-Length: \(data.count)\r\nConnection: close\r\n\r\n"
            guard send(fd, Data(head.utf8) + data.prefix(first)) else { return false }
            gate.pass()
            guard !isStopped else { return false }
            _ = send(fd, data.dropFirst(first))
            return false
        }
    }

    /// Waits `duration` in short sleeps, as a slow peer would (`drip`, `firstByteAfter`), so
    /// `stop()` is not held up; false once stopped.
    private func sleep(_ duration: Duration) -> Bool {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {
            if isStopped { return false }
            let step = min(.milliseconds(20), end - ContinuousClock.now)
            Thread.sleep(forTimeInterval: Double(step.components.attoseconds) / 1e18 + Double(step.components.seconds))
        }
        return !isStopped
    }

    private func send(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }

    /// Why the server could not start.
    public enum ServerError: Error, CustomStringConvertible {
        case system(String, Int32)
        case badHost(String)

        public var description: String {
            switch self {
            case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
            case .badHost(let host): "\(host) is not an IP literal; use 127.0.0.1 or ::1"
            }
        }
    }
}

extension TestHTTPServer {
    /// Where held requests wait (`TestHTTPServer.hold`) until the test lets them pass, and what
    /// the test waits on to know they got there: woken by the server's threads, never by a timer.
    ///
    ///     let gate = server.hold("/a.jpg", .bytes(jpeg, contentType: "image/jpeg"))
    ///     _ = await gate.wait { $0.waiting >= 2 }   // two requests held at once
    ///     gate.release()                            // one of them passes
    ///     gate.open()                               // all of them, now and later
    public final class Gate: @unchecked Sendable {
        public struct State: Sendable, Equatable {
            /// Requests that reached the gate so far.
            public var arrived = 0
            /// Requests held at the gate now.
            public var waiting = 0
            /// The most requests held at once.
            public var peakWaiting = 0
            /// Requests let through so far.
            public var passed = 0
            /// Whether everything passes from now on.
            public var isOpen = false
        }

        private let state = Watched(State())
        private var permits = 0  // guarded by `state`'s lock

        public init() {}

        /// Now.
        public var current: State { state.value }

        /// Lets `count` requests pass: held ones first, else the next ones to arrive.
        public func release(_ count: Int = 1) { state.update { _ in permits += count } }

        /// Lets every held request pass, and every later one.
        public func open() { state.update { $0.isOpen = true } }

        /// Holds the calling (server) thread until a permit or `open()`.
        func pass() {
            state.update {
                $0.arrived += 1
                $0.waiting += 1
                $0.peakWaiting = max($0.peakWaiting, $0.waiting)
            }
            state.block(until: { $0.isOpen || self.permits > 0 }) {
                if !$0.isOpen { self.permits -= 1 }
                $0.waiting -= 1
                $0.passed += 1
            }
        }

        /// Blocks the calling thread until `condition` holds: the state then, or nil when
        /// `timeout` passed first. For synchronous tests.
        public func waitBlocking(timeout: Duration = HangGuard.wait, until condition: (State) -> Bool) -> State? {
            state.waitBlocking(timeout: timeout, until: condition)
        }

        /// Waits (off the cooperative pool) until `condition` holds; the state then, or nil when
        /// `timeout` passed first. The timeout only bounds a broken test; it is never the
        /// expected way out.
        public func wait(
            timeout: Duration = HangGuard.wait, until condition: @escaping @Sendable (State) -> Bool
        ) async -> State? {
            await state.wait(timeout: timeout, until: condition)
        }
    }
}

/// A value guarded by a condition variable: threads update it, tests wait until it satisfies
/// a condition (woken by every update, never by a timer).
///
///     let seen = Watched([Int]())
///     observer = { line in seen.update { $0.append(line) } }
///     let lines = await seen.wait { $0.count == 2 }   // nil only if HangGuard.wait passed first
public final class Watched<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var stored: Value

    public init(_ value: Value) { stored = value }

    public var value: Value {
        condition.lock()
        defer { condition.unlock() }
        return stored
    }

    /// Changes the value under the lock and wakes every waiter.
    public func update(_ change: (inout Value) -> Void) {
        condition.lock()
        change(&stored)
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks the calling thread until `condition` holds, then applies `change` under the same
    /// lock. For threads the test owns (server connections), not for the cooperative pool.
    func block(until condition: (Value) -> Bool, then change: (inout Value) -> Void) {
        self.condition.lock()
        while !condition(stored) { self.condition.wait() }
        change(&stored)
        self.condition.broadcast()
        self.condition.unlock()
    }

    /// Blocks the calling thread until `condition` holds: the value then, or nil when `timeout`
    /// passed first.
    public func waitBlocking(timeout: Duration = HangGuard.wait, until condition: (Value) -> Bool) -> Value? {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let limit = Date().addingTimeInterval(seconds)
        self.condition.lock()
        defer { self.condition.unlock() }
        while !condition(stored) {
            if !self.condition.wait(until: limit) && !condition(stored) { return nil }
        }
        return stored
    }

    /// `waitBlocking` on a thread of its own, so a suspended test does not tie up one of the
    /// cooperative pool's few threads (one, on one core).
    public func wait(
        timeout: Duration = HangGuard.wait, until condition: @escaping @Sendable (Value) -> Bool
    ) async -> Value? {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: self.waitBlocking(timeout: timeout, until: condition))
            }
            thread.name = "Watched.wait"
            thread.start()
        }
    }
}

/// A `TaskExecutor` with a thread of its own, for a test that must not wait for Swift's shared
/// cooperative pool: CPU-bound suites in the same process keep that pool busy (it has as many
/// threads as cores, one under `taskset -c 0`), and a continuation resumed behind them can wait
/// as long as they run. With this as the task executor preference, the test, its child tasks
/// (`async let`, task groups) and the default actors they call run here, and a blocking
/// synchronous test blocks only this thread.
///
///     let executor = ThreadExecutor(name: "my test")
///     defer { executor.finish() }
///     try await withTaskExecutorPreference(executor) { try await body() }
public final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let name: String
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var running = false
    private var finishing = false

    public init(name: String) { self.name = name }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let start = !running
        running = true
        condition.signal()
        condition.unlock()
        if start {
            let thread = Thread { [self] in runJobs() }
            thread.name = name
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Lets the thread end once it has nothing left to run; a job enqueued later (a late
    /// resumption) starts a new one.
    public func finish() {
        condition.lock()
        finishing = true
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty {
                if finishing {
                    running = false
                    condition.unlock()
                    return
                }
                condition.wait()
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
