import Foundation

/// One request and its answer. Created when the request head arrives; the handler answers with
/// `complete(_:)`, at once or later from any thread after `park()`.
final class HTTPExchange: @unchecked Sendable {
    /// The path and query as the client sent them.
    let uri: String
    /// When the request head arrived.
    let started = ContinuousClock.now
    private(set) var method = ""
    private(set) var connection: OpaquePointer?
    private unowned let daemon: HTTPDaemon

    private enum State {
        /// The handler runs on the worker thread.
        case handling
        /// The handler parked it and returned; the connection is not yet suspended.
        case parked
        /// Suspended, waiting for `complete`.
        case suspended
        /// An answer is waiting to be queued.
        case ready(HTTPResponse)
        /// Queued (or dropped).
        case done
    }

    private let lock = NSLock()
    private var state = State.handling
    /// Calls of the daemon's request callback so far.
    private var calls = 0
    /// What was sent: for the access log and metrics.
    private(set) var sentStatus = 0
    private(set) var sentBytes = 0
    /// Set by the handler for the access log: which cache path the answer took, the cache key.
    var note: (cache: String, key: String?) = ("-", nil)
    /// Set by the handler when the answer is one it keeps for other requests (the cache key's
    /// digest, and the answer): a send of it that fails tells the handler to drop it.
    var kept: (digest: String, response: SharedResponse)?
    /// False when the request ended before its answer was sent whole (set by `finish`).
    private(set) var sentWhole = true

    init(uri: String, daemon: HTTPDaemon) {
        self.uri = uri
        self.daemon = daemon
    }

    /// The request's `If-None-Match`, read on the worker thread when the request is handed over
    /// (an answer made later, on another thread, must not touch the connection).
    private(set) var ifNoneMatch: String?

    /// The client's address, read when the request is handed over.
    private(set) var client = "-"

    /// Set when the request's framing is refused: answer 400; the connection is then closed.
    private(set) var framing: FramingProblem?

    /// The answer will come later, from `complete` on any thread. False when the daemon is
    /// stopping: answer at once instead.
    func park() -> Bool {
        guard daemon.park(self) else { return false }
        lock.withLock { if case .handling = state { state = .parked } }
        return true
    }

    /// Answers the request. The first answer wins; later ones are dropped (their files closed).
    func complete(_ response: HTTPResponse) {
        let resume: OpaquePointer? = lock.withLock {
            switch state {
            case .handling, .parked:
                state = .ready(response)
                return nil
            case .suspended:
                state = .ready(response)
                return connection
            case .ready, .done:
                response.discard()
                return nil
            }
        }
        if let resume { HTTPDaemon.resume(resume) }
    }

    /// The request is done (the daemon's completed callback; `sentWhole` false when it ended
    /// before its answer was sent whole): an answer never sent is dropped, its file closed, and
    /// the connection is forgotten.
    func finish(sentWhole: Bool) {
        lock.withLock {
            if case .ready(let response) = state { response.discard() }
            state = .done
            connection = nil
            self.sentWhole = sentWhole
        }
    }

    /// One call of the daemon's request callback: the first hands the request to `handler`,
    /// a later one (after a resume) queues the answer. False closes the connection.
    ///
    /// The very first call only says the head arrived: a response queued then (before the
    /// request is read to its end) makes libmicrohttpd close the connection after it, which
    /// would cost every keep-alive client a new connection per request. The second call hands
    /// the request over. A request whose framing is refused is handed over on the first call,
    /// so its answer closes the connection and nothing after its head is read as a request.
    func step(connection: OpaquePointer, method: String, handler: any HTTPDaemon.Handler) -> Bool {
        let call: Int = lock.withLock {
            calls += 1
            return calls
        }
        var handOver = call == 2
        if call == 1 {
            guard let problem = HTTPDaemon.framingProblem(of: connection) else { return true }
            lock.withLock { framing = problem }
            handOver = true
        }
        if handOver {
            lock.withLock {
                self.connection = connection
                self.method = method
                ifNoneMatch = HTTPDaemon.header("If-None-Match", of: connection)
                if handler.wantsClientAddress { client = HTTPDaemon.clientAddress(connection) }
            }
            handler.handle(self)
        }
        return lock.withLock { () -> Bool in
            switch state {
            case .ready(let response):
                state = .done
                sentStatus = response.status
                sentBytes = method == "HEAD" ? 0 : response.length
                return HTTPDaemon.send(response, on: connection)
            case .parked:
                state = .suspended
                HTTPDaemon.suspend(connection)
                return true
            case .handling:
                // A handler that neither answered nor parked: a bug; answer rather than hang.
                state = .done
                sentStatus = 500
                return HTTPDaemon.send(HTTPResponse(status: 500), on: connection)
            case .suspended, .done:
                return true
            }
        }
    }
}
