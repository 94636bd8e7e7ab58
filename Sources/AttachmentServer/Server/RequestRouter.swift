import Foundation
import PushAttach

/// Answers each request: the operational routes, then a link's cache hit at once on the worker
/// thread, or its miss through the single flight.
final class RequestRouter: HTTPDaemon.Handler, @unchecked Sendable {
    let configuration: AttachmentServer.Configuration
    let cache: AttachmentCache
    let preparer: AttachmentPreparer
    let flights: SingleFlight<Outcome>
    /// The preparer's pipeline in the cache's work folder, kept for the server's life (nil when
    /// the folder could not be held: each preparation then opens it and says why it cannot).
    private let hold: AttachmentPreparer.FolderHold?
    /// The threads preparations run on (`ServeExecutor`); nil where task executors are missing.
    private let executor: (any Sendable)?
    let metrics = ServerMetrics()
    /// The 200s of recently hit entries, kept made between hits.
    let hotAnswers = HotAnswers()
    let log: AccessLog?
    weak var daemon: HTTPDaemon?
    private let drainLock = NSLock()
    private var draining = false
    /// URIs (exactly as sent) whose signature held, with their link and cache key: a hot link
    /// (a push to many devices) is parsed, checked and hashed once, not on every request. A
    /// link's signature cannot stop holding while the key is the same. Starts over when full.
    private let verifiedLinks = Locked<[String: (AttachmentLink, AttachmentCache.Key)]>([:])
    private static let verifiedLinkLimit = 4096
    /// When each preparation in flight started, by cache key: what a 504's estimate counts from.
    let preparationStarts = Locked<[String: ContinuousClock.Instant]>([:])
    /// When the latest preparation ended (nil before the first): with `preparationStarts`,
    /// `AttachmentServer.preparationActivity`.
    let lastPreparationEnd = Locked<ContinuousClock.Instant?>(nil)
    /// How long the latest preparations that outlived a request's deadline took (the last 32):
    /// what a 504's estimate of the time left is drawn from.
    let slowPreparations = Locked<[Duration]>([])

    var wantsClientAddress: Bool { log != nil }

    /// How a preparation ended: stored in the cache (the entry open, shared by every waiter:
    /// each sends its own duplicate descriptor, so an eviction right after the store cannot take
    /// the answer away), or refused/failed.
    enum Outcome: Sendable {
        case cached(AttachmentCache.Entry)
        case problem(AttachmentProblem)
    }

    init(configuration: AttachmentServer.Configuration, cache: AttachmentCache) {
        self.configuration = configuration
        self.cache = cache
        preparer = AttachmentPreparer(configuration: configuration.effectivePreparer)
        hold = try? cache.hold(preparer)
        if #available(macOS 15.0, *) {
            let executor = ServeExecutor(threads: 2, name: "pushattach serve")
            self.executor = executor
            flights = SingleFlight(limit: configuration.maxPending) { [metrics] work in
                Task(executorPreference: executor) {
                    await work()
                    metrics.noteChange()
                }
            }
        } else {
            executor = nil
            flights = SingleFlight(limit: configuration.maxPending) { [metrics] work in
                Task {
                    await work()
                    metrics.noteChange()
                }
            }
        }
        log = configuration.accessLogPath.map(AccessLog.init(path:))
    }

    /// Cancels the preparations still in flight (those that outlived their requests too), lets
    /// the work folder's pipeline stop with its last one, and lets the executor's threads end
    /// once their jobs are done.
    func stopPreparations() {
        flights.cancelAll()
        hold?.release()
        if #available(macOS 15.0, *) { (executor as? ServeExecutor)?.stop() }
    }

    var isDraining: Bool {
        get { drainLock.withLock { draining } }
        set { drainLock.withLock { draining = newValue } }
    }

    var metricsText: String {
        metrics.render(
            inFlight: daemon?.openRequests ?? 0, pending: flights.inFlight, unattended: flights.unattended,
            cacheBytes: cache.usage, hotAnswers: hotAnswers.usage.count)
    }

    // MARK: - HTTPDaemon.Handler

    func handle(_ exchange: HTTPExchange) {
        if let framing = exchange.framing {
            var response = Self.problemResponse(AttachmentProblem(status: 400, error: "bad_request", reason: framing.reason))
            response.headers.append(("Connection", "close"))
            return exchange.complete(response)
        }
        guard exchange.method == "GET" || exchange.method == "HEAD" else {
            var response = Self.problemResponse(
                AttachmentProblem(status: 405, error: "method_not_allowed", reason: "only GET and HEAD are served"))
            response.headers.append(("Allow", "GET, HEAD"))
            return exchange.complete(response)
        }
        switch Self.route(of: exchange.uri) {
        case "/healthz": exchange.complete(Self.text("ok\n"))
        case "/readyz":
            exchange.complete(
                isDraining
                    ? Self.problemResponse(
                        AttachmentProblem(
                            status: 503, error: "unavailable", reason: "draining: shutting down", retryAfter: .seconds(1)))
                    : Self.text("ready\n"))
        case "/metrics": exchange.complete(Self.text(metricsText, type: "text/plain; version=0.0.4"))
        default: handleLink(exchange)
        }
    }

    func completed(_ exchange: HTTPExchange) {
        // A kept answer whose send failed may be spoiled for the next (libmicrohttpd shortens a
        // response whose file read fails): made again on the next hit. A client that left early
        // costs the same, which is cheap.
        if !exchange.sentWhole, let (digest, response) = exchange.kept { hotAnswers.drop(digest, ifStill: response) }
        // 0: the client went away before an answer was queued (the access log still says so).
        if exchange.sentStatus != 0 { metrics.answered(status: exchange.sentStatus) }
        guard let log else { return }
        let elapsed = ContinuousClock.now - exchange.started
        let line = AccessLog.Line(
            time: Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
            client: exchange.client, method: exchange.method, route: Self.loggedRoute(exchange.uri),
            key: exchange.note.key, status: exchange.sentStatus, bytes: exchange.sentBytes,
            ms: (elapsed.inSeconds * 1000).rounded(toPlaces: 3),
            cache: exchange.note.cache)
        log.write(line)
    }

    // MARK: - Links

    private func handleLink(_ exchange: HTTPExchange) {
        if let (link, key) = verifiedLinks.withLock({ $0[exchange.uri] }) {
            return answerLink(exchange, link: link, key: key)
        }
        let request: AttachmentLink.SignedRequest
        do { request = try AttachmentLink.parse(uri: exchange.uri) } catch {
            let word = error.status == 404 ? "no_route" : "bad_request"
            return exchange.complete(Self.problemResponse(AttachmentProblem(status: error.status, error: word, reason: error.reason)))
        }
        guard configuration.allowUnsigned || configuration.signer?.isValid(request.signature, for: request.signedPart) == true
        else {
            let reason = request.signature == "-" ? "this link is not signed" : "the link's signature does not match"
            return exchange.complete(Self.problemResponse(AttachmentProblem(status: 403, error: "forbidden", reason: reason)))
        }
        let key = AttachmentCache.Key(request.link, variant: configuration.variant)
        verifiedLinks.withLock { links in
            if links.count >= Self.verifiedLinkLimit { links.removeAll(keepingCapacity: true) }
            links[exchange.uri] = (request.link, key)
        }
        answerLink(exchange, link: request.link, key: key)
    }

    /// A link whose signature holds: from the cache, or through the single flight.
    private func answerLink(_ exchange: HTTPExchange, link: AttachmentLink, key: AttachmentCache.Key) {
        exchange.note.key = String(key.digest.prefix(16))
        if let hot = hotAnswers.answer(for: key.digest) {
            if cache.isCurrent(hot.entry) {
                metrics.hit(kept: true)
                exchange.note.cache = "hit"
                return exchange.complete(answer(hot, for: key.digest, to: exchange))
            }
            hotAnswers.drop(key.digest, ifStill: hot.response)
        }
        if let entry = cache.entry(for: key) {
            metrics.hit()
            exchange.note.cache = "hit"
            return exchange.complete(answer(entry, to: exchange, keepingFor: key.digest))
        }
        if isDraining {
            return exchange.complete(Self.problemResponse(
                AttachmentProblem(
                    status: 503, error: "unavailable", reason: "draining: shutting down", retryAfter: .seconds(1))))
        }
        miss(exchange, link: link, key: key)
    }

    private func miss(_ exchange: HTTPExchange, link: AttachmentLink, key: AttachmentCache.Key) {
        guard exchange.park() else {
            return exchange.complete(Self.problemResponse(
                AttachmentProblem(
                    status: 503, error: "unavailable", reason: "the server is shutting down; try again",
                    retryAfter: .seconds(1))))
        }
        let remaining = configuration.deadline - (ContinuousClock.now - exchange.started)
        let joined = flights.join(key.digest, timeout: remaining, work: { [self] in await prepare(link, key: key) }) {
            [self] outcome in
            exchange.complete(answer(outcome, to: exchange, key: key.digest))
        }
        switch joined {
        case .full:
            metrics.busy()
            exchange.note.cache = "busy"
            exchange.complete(Self.problemResponse(
                AttachmentProblem(
                    status: 503, error: "unavailable",
                    reason: "\(configuration.maxPending) preparations are in flight (the server's limit); try again shortly",
                    retryAfter: .seconds(1))))
        case .started:
            metrics.miss(coalesced: false)
            exchange.note.cache = "miss"
        case .waiting:
            metrics.miss(coalesced: true)
            exchange.note.cache = "coalesced"
        }
    }

    private func answer(_ outcome: Outcome?, to exchange: HTTPExchange, key: String) -> HTTPResponse {
        switch outcome {
        case nil:
            let (left, estimate) = timeLeft(preparing: key)
            let rest =
                left > .zero
                ? "the preparation goes on for up to \(Self.seconds(left)) more: a retry joins it, or finds it cached"
                : "the preparation has just ended: a retry finds it cached, unless it failed"
            return Self.problemResponse(AttachmentProblem(
                status: 504, error: "timeout",
                reason: "not prepared within the server's deadline (\(Self.seconds(configuration.deadline))); \(rest)",
                retryAfter: estimate))
        case .problem(var problem):
            if problem.isCacheable { return refusalResponse(status: problem.status, body: problem.json, age: 0) }
            if problem.status == 503, problem.retryAfter == nil { problem.retryAfter = .seconds(1) }
            return Self.problemResponse(problem)
        case .cached(let entry):
            return answer(entry, to: exchange, keepingFor: nil)
        }
    }
}
