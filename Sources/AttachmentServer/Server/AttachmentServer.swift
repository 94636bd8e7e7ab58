import Foundation
import PushAttach

/// `pushattach serve` as a library: an HTTP endpoint a Notification Service Extension fetches
/// attachments through. `GET /a/<signature>/<base64url(source URL)>[?type=…&thumb=…]` answers
/// with the attachment prepared from the source (cached on disk), its `ETag`, `Cache-Control`
/// and `X-Attachment-Type-Hint`; concurrent requests for one link share one preparation.
///
///     var configuration = AttachmentServer.Configuration(cacheFolder: URL(fileURLWithPath: "/var/cache/pushattach"))
///     configuration.signer = AttachmentSigner(key: Array(secret.utf8))
///     let server = try AttachmentServer(configuration: configuration)
///     print("listening on port \(server.port)")
///     // … on SIGTERM:
///     await server.drain(grace: .seconds(10))
///
/// Also `/healthz` (alive), `/readyz` (200 until draining) and `/metrics` (Prometheus text).
/// Every error answer has the JSON body of `AttachmentProblem`. The server is stateless apart
/// from its cache folder, which replicas may share.
public final class AttachmentServer: Sendable {
    /// What it decides by.
    public let configuration: Configuration
    /// The port it listens on.
    public var port: Int { daemon.port }
    private let router: RequestRouter
    private let daemon: HTTPDaemon

    /// Opens the cache and starts listening.
    ///
    /// - Throws: `ServerError`: no signer without `allowUnsigned`, the cache folder cannot be
    ///   opened, the address cannot be bound.
    public init(configuration: Configuration) throws(ServerError) {
        guard configuration.signer != nil || configuration.allowUnsigned else {
            throw .configuration(
                "no signing key: give AttachmentServer.Configuration.signer (or allow unsigned links, for development only)")
        }
        guard configuration.deadline > .zero, configuration.prepareTimeout > .zero, configuration.maxPending > 0 else {
            throw .configuration("the deadline, the preparation budget and the pending-preparation limit must be above 0")
        }
        if let problem = configuration.originHeaderProblem { throw .configuration(problem) }
        self.configuration = configuration
        let cache: AttachmentCache
        do {
            cache = try AttachmentCache(
                folder: configuration.cacheFolder, capacity: configuration.cacheCapacity,
                rejectionTTL: configuration.rejectionTTL, settingNames: configuration.cacheSettingNames)
        } catch { throw .cache(error) }
        router = RequestRouter(configuration: configuration, cache: cache)
        daemon = try HTTPDaemon(
            settings: HTTPDaemon.Settings(
                host: configuration.host, port: configuration.port, threads: configuration.threads,
                connectionLimit: configuration.connectionLimit, perIPLimit: configuration.perIPLimit,
                idleTimeout: configuration.idleTimeout, headerTimeout: configuration.headerTimeout),
            handler: router)
        router.daemon = daemon
    }

    /// The `/metrics` text (Prometheus exposition format).
    public var metrics: String { router.metricsText }

    /// Whether the server is preparing, and since when it has not: for a caller that does
    /// something once the server has gone idle (`serve` hands freed memory back to the kernel
    /// 10-15 s after its latest preparation: `MallocTuning.releaseFreeMemory()`).
    public struct PreparationActivity: Sendable, Equatable {
        /// Preparations running now.
        public var inFlight: Int
        /// When the latest preparation ended; nil before the first.
        public var lastEnded: ContinuousClock.Instant?
    }

    /// The preparations running now and when the latest one ended.
    public var preparationActivity: PreparationActivity {
        PreparationActivity(
            inFlight: router.preparationStarts.withLock { $0.count },
            lastEnded: router.lastPreparationEnd.withLock { $0 })
    }

    /// Blocks until the `/metrics` text satisfies `condition`: checked now, then after each
    /// change of a counter or of the preparations in flight (woken by the change, never by a
    /// timer). False when `timeout` passed first. For tests and tools that wait on the server.
    package func waitForMetrics(timeout: Duration, until condition: (String) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(Double(timeout.components.seconds))
        while true {
            let seen = router.metrics.changes
            if condition(metrics) { return true }
            guard router.metrics.waitForChange(after: seen, until: end) else { return condition(metrics) }
        }
    }

    /// Drains: `/readyz` answers 503 from the start, so a load balancer stops sending new
    /// requests; connections are still taken for `delay` (the time a load balancer or a
    /// Kubernetes Service takes to notice), then no more; the requests in flight may finish for
    /// up to `grace`; any still waiting then get 503, and the server stops.
    public func drain(grace: Duration, delay: Duration = .zero) async {
        beginDraining()
        if delay > .zero { try? await Task.sleep(for: delay) }
        daemon.quiesce()
        let end = ContinuousClock.now + grace
        while daemon.openRequests > 0, ContinuousClock.now < end {
            try? await Task.sleep(for: .milliseconds(20))
        }
        stop()
    }

    /// `/readyz` answers 503 from now on, and new requests for links 503 with `Retry-After`,
    /// while connections are still taken: the first step of `drain(grace:delay:)`, for a caller
    /// that reports the drain once it has begun.
    public func beginDraining() { router.isDraining = true }

    /// Stops at once: requests still waiting get 503, connections are closed, preparations
    /// still in flight (those that outlived their requests too) are cancelled, and the files of
    /// hot entries kept open are closed.
    public func stop() {
        router.isDraining = true
        daemon.stop(answeringParkedWith: RequestRouter.problemResponse(
            AttachmentProblem(
                status: 503, error: "unavailable", reason: "the server is shutting down; try again",
                retryAfter: .seconds(1))))
        router.stopPreparations()
        router.hotAnswers.removeAll()
    }

    deinit { stop() }

    /// Reopens the access log file (after logrotate moved it; `serve` does this on SIGHUP).
    public func reopenLog() { router.log?.reopen() }
}
