import CMicroHTTPD
import CMicroHTTPDShim
import Foundation
import PushAttach

/// An HTTP/1.1 server on libmicrohttpd: a pool of worker threads, each with its own epoll, that
/// parse requests, time out idle connections and late request heads, and send files with
/// `sendfile`. A request whose framing could desynchronise a proxy in front (any
/// `Transfer-Encoding`, a `Content-Length` other than one 0, a header name that is not a token)
/// is handed over at once with its `framing` problem, answered, and its connection closed. Each
/// request becomes an `HTTPExchange` handed to `handler` on a worker thread; the handler answers
/// at once (a cache hit) or parks the connection and answers later from any thread (a miss),
/// which frees the worker for other connections meanwhile.
///
/// The only file in the server that calls libmicrohttpd; its variadic calls are in
/// `CMicroHTTPDShim`.
final class HTTPDaemon: @unchecked Sendable {
    struct Settings: Sendable {
        var host: String
        var port: Int
        var threads: Int
        var connectionLimit: Int
        var perIPLimit: Int
        /// Seconds a connection may sit idle before it is closed.
        var idleTimeout: Int
        /// How long a whole request head may take to arrive, whatever its pace: from the
        /// connection's start, or after the previous answer plus `idleTimeout`. Zero: no bound.
        var headerTimeout: Duration
    }

    /// Called for each request on a worker thread, and once it is done.
    protocol Handler: AnyObject, Sendable {
        func handle(_ exchange: HTTPExchange)
        func completed(_ exchange: HTTPExchange)
        /// Whether exchanges should read the client's address (for an access log).
        var wantsClientAddress: Bool { get }
    }

    /// The port bound (the one asked for, or the one the system chose for port 0).
    let port: Int
    private var server: OpaquePointer?
    private let handler: any Handler
    private let lock = NSLock()
    private var openExchanges: Set<ObjectIdentifier> = []
    private var parked: [ObjectIdentifier: HTTPExchange] = [:]
    /// Set by `stop`: nothing may park any more (libmicrohttpd aborts when stopped with a
    /// suspended connection).
    private var closed = false

    /// Binds `settings.host`:`settings.port` and starts the worker threads.
    init(settings: Settings, handler: any Handler) throws(ServerError) {
        self.handler = handler
        var bound: Int32 = 0
        var code: Int32 = 0
        var message = [CChar](repeating: 0, count: 128)
        let fd = pa_httpd_listen(settings.host, String(settings.port), &bound, &code, &message, message.count)
        guard fd >= 0 else {
            let call = Self.text(message)
            throw .listen(address: "\(settings.host):\(settings.port)", call: call, errno: code)
        }
        port = Int(bound)
        var options = pa_httpd_settings(
            listen_fd: fd, threads: UInt32(max(1, settings.threads)),
            connection_limit: UInt32(max(1, settings.connectionLimit)), per_ip_limit: UInt32(max(0, settings.perIPLimit)),
            idle_timeout: UInt32(max(1, settings.idleTimeout)),
            header_timeout_ms: UInt32(clamping: max(0, settings.headerTimeout.inMilliseconds)))
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let started = pa_httpd_start(&options, Self.uriCallback, Self.requestCallback, Self.completedCallback, context)
        else {
            close(fd)
            throw .start(address: "\(settings.host):\(settings.port)")
        }
        server = started
    }

    /// Requests received and not yet done.
    var openRequests: Int { lock.withLock { openExchanges.count } }

    /// Stops accepting connections; open ones go on (keep-alive included).
    func quiesce() {
        guard let server else { return }
        pa_httpd_quiesce(server)
    }

    /// Answers every parked request with `response`, then stops the threads and closes every
    /// connection. Safe to call more than once.
    func stop(answeringParkedWith response: @autoclosure () -> HTTPResponse) {
        lock.withLock { closed = true }
        // Once closed, nothing parks again, so this ends; an exchange answered twice drops the second.
        var resumed = false
        while let waiting = lock.withLock({ parked.isEmpty ? nil : Array(parked.values) }) {
            for exchange in waiting { exchange.complete(response()) }
            resumed = true
            // The completed callback unparks each; give the resumed answers a moment to go out.
            let deadline = Date().addingTimeInterval(1)
            while lock.withLock({ !parked.isEmpty }), Date() < deadline { usleep(10_000) }
            if Date() >= deadline { break }
        }
        if resumed { usleep(50_000) }
        let stopping: OpaquePointer? = lock.withLock {
            defer { server = nil }
            return server
        }
        if let stopping { pa_httpd_stop(stopping) }
    }

    deinit { stop(answeringParkedWith: HTTPResponse(status: 503)) }

    // MARK: - Exchanges

    /// Keeps `exchange` until it is done, for `stop` to answer; false once the daemon is stopping.
    func park(_ exchange: HTTPExchange) -> Bool {
        lock.withLock {
            guard !closed else { return false }
            parked[ObjectIdentifier(exchange)] = exchange
            return true
        }
    }

    private func unpark(_ exchange: HTTPExchange) {
        _ = lock.withLock { parked.removeValue(forKey: ObjectIdentifier(exchange)) }
    }

    /// Queues `response` on the exchange's connection (on a worker thread, inside its callback).
    static func send(_ response: HTTPResponse, on connection: OpaquePointer) -> Bool {
        if case .shared(let shared) = response.body {
            return MHD_queue_response(connection, UInt32(shared.status), shared.made) == .YES
        }
        guard let made = make(response) else { return false }
        let queued = MHD_queue_response(connection, UInt32(response.status), made)
        MHD_destroy_response(made)
        return queued == .YES
    }

    /// `response` made once, to be sent to many requests (its file stays open until the last
    /// of them is done with it and the value is gone); nil when libmicrohttpd cannot make it
    /// (the descriptor of a file body is closed then).
    static func share(_ response: HTTPResponse) -> SharedResponse? {
        if case .shared(let shared) = response.body { return shared }
        return make(response).map { SharedResponse(made: $0, status: response.status, length: response.length) }
    }

    /// libmicrohttpd's response for `response`, with its headers; nil (a file body's descriptor
    /// closed) when it cannot be made.
    private static func make(_ response: HTTPResponse) -> OpaquePointer? {
        let made: OpaquePointer?
        switch response.body {
        case .shared: return nil
        case .empty:
            made = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        case .data(let data):
            made = data.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .file(let descriptor, let offset, let length):
            made = MHD_create_response_from_fd_at_offset64(UInt64(length), descriptor, UInt64(offset))
        }
        guard let made else {
            response.discard()
            return nil
        }
        for (name, value) in response.headers { _ = MHD_add_response_header(made, name, value) }
        return made
    }

    static func header(_ name: String, of connection: OpaquePointer) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    /// What is wrong with the framing of the request on `connection`, or nil.
    static func framingProblem(of connection: OpaquePointer) -> FramingProblem? {
        FramingProblem(rawValue: pa_httpd_framing_problem(connection))
    }

    static func suspend(_ connection: OpaquePointer) { MHD_suspend_connection(connection) }
    static func resume(_ connection: OpaquePointer) { MHD_resume_connection(connection) }

    static func clientAddress(_ connection: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard pa_httpd_client_address(connection, &buffer, buffer.count) == 0 else { return "-" }
        return text(buffer)
    }

    /// The text a C call wrote into `buffer`, up to its NUL.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: - Callbacks from the worker threads

    private static let uriCallback: pa_httpd_uri_callback = { context, uri in
        let daemon = Unmanaged<HTTPDaemon>.fromOpaque(context!).takeUnretainedValue()
        let exchange = HTTPExchange(uri: uri.map { String(cString: $0) } ?? "", daemon: daemon)
        daemon.lock.withLock { _ = daemon.openExchanges.insert(ObjectIdentifier(exchange)) }
        return Unmanaged.passRetained(exchange).toOpaque()
    }

    private static let requestCallback: pa_httpd_request_callback = { context, connection, method, request in
        guard let context, let connection, let request else { return 0 }
        let daemon = Unmanaged<HTTPDaemon>.fromOpaque(context).takeUnretainedValue()
        let exchange = Unmanaged<HTTPExchange>.fromOpaque(request).takeUnretainedValue()
        return exchange.step(connection: connection, method: method.map { String(cString: $0) } ?? "", handler: daemon.handler)
            ? 1 : 0
    }

    private static let completedCallback: pa_httpd_completed_callback = { context, request, completed in
        guard let context, let request else { return }
        let daemon = Unmanaged<HTTPDaemon>.fromOpaque(context).takeUnretainedValue()
        let exchange = Unmanaged<HTTPExchange>.fromOpaque(request).takeRetainedValue()
        exchange.finish(sentWhole: completed != 0)
        daemon.unpark(exchange)
        daemon.lock.withLock { _ = daemon.openExchanges.remove(ObjectIdentifier(exchange)) }
        daemon.handler.completed(exchange)
    }
}

/// An answer libmicrohttpd holds ready (`HTTPDaemon.share`): queued on any number of
/// connections, at once or one after another, without making it again. A file body is sent
/// with `sendfile` from an offset of its own per connection; libmicrohttpd counts the
/// connections using it and closes the file after the last, once this value is gone too.
/// (libmicrohttpd holds a response's lock while it sends a piece of its file, so two workers
/// sending one response take turns, a `sendfile` call at a time.)
final class SharedResponse: @unchecked Sendable {
    fileprivate let made: OpaquePointer
    let status: Int
    /// The body's length in bytes.
    let length: Int

    fileprivate init(made: OpaquePointer, status: Int, length: Int) {
        self.made = made
        self.status = status
        self.length = length
    }

    deinit { MHD_destroy_response(made) }
}

/// A request head whose framing is refused (RFC 9112 §6.3: a server may reject what a proxy in
/// front might read differently). No route takes a body.
enum FramingProblem: Int32, Sendable {
    case transferEncoding = 1
    case contentLength = 2
    case headerName = 3

    /// What is wrong, for the answer's reason.
    var reason: String {
        switch self {
        case .transferEncoding: "Transfer-Encoding is refused: no route takes a body"
        case .contentLength: "a Content-Length other than one 0 is refused: no route takes a body"
        case .headerName: "a header name that is not an HTTP token (a space before its colon?) is refused"
        }
    }
}

/// Why the server could not start.
public enum ServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The listening socket could not be made: `call` failed (`bind`: the address is in use or
    /// not this machine's) or the host did not resolve.
    case listen(address: String, call: String, errno: Int32)
    /// libmicrohttpd would not start on the socket.
    case start(address: String)
    /// The configuration cannot work: no signing key and unsigned links not allowed, a limit
    /// out of range.
    case configuration(String)
    /// The cache folder could not be opened.
    case cache(AttachmentError)

    /// What failed, and what to do.
    public var description: String {
        switch self {
        case .listen(let address, let call, let code) where code != 0:
            let text = String(cString: strerror(code))
            let advice =
                code == EADDRINUSE
                ? " (another process listens there: pick another port)"
                : code == EADDRNOTAVAIL ? " (not an address of this machine: listen on 0.0.0.0, :: or one of its own)" : ""
            return "cannot listen on \(address): \(call) failed: \(text)\(advice)"
        case .listen(let address, let call, _):
            return "cannot listen on \(address): \(call) (is the host an address of this machine?)"
        case .start(let address):
            return "libmicrohttpd would not start on \(address) (too many threads or connections for this system?)"
        case .configuration(let reason):
            return reason
        case .cache(let error):
            return error.description
        }
    }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { lock.withLock { body(&value) } }
}
