import Foundation
import PushAttach

extension AttachmentServer {
    /// Everything the server decides by. The defaults suit one replica behind a load balancer.
    ///
    ///     var configuration = AttachmentServer.Configuration(cacheFolder: URL(fileURLWithPath: "/var/cache/pushattach"))
    ///     configuration.signer = try AttachmentSigner(keyFile: URL(fileURLWithPath: "/etc/pushattach/key"))
    ///     configuration.preparer.fetch.allowedHosts = ["*.cdn.example.com"]
    public struct Configuration: Sendable {
        /// The address to listen on ("127.0.0.1", "::", "0.0.0.0"). Default 127.0.0.1.
        public var host = "127.0.0.1"
        /// The port; 0 lets the system choose (read it back from `AttachmentServer.port`). Default 8080.
        public var port = 8080
        /// The cache folder (shared safely by replicas on one volume).
        public var cacheFolder: URL
        /// Bytes of cache entries kept before the least recently used go. Default 1 GB.
        public var cacheCapacity = 1_000_000_000
        /// How long a refusal (422, or 404 from the origin) is answered from the cache. Default 60 s.
        public var rejectionTTL: Duration = .seconds(60)
        /// Checks the links' signatures; nil only with `allowUnsigned`.
        public var signer: AttachmentSigner?
        /// Serve links without a valid signature (development only).
        public var allowUnsigned = false
        /// `Cache-Control: public, max-age=` of a prepared file, in seconds. Default one day.
        public var maxAge = 86_400
        /// The longest a request waits for its preparation before a 504 (with `Retry-After`):
        /// under the extension's 30 s. Default 20 s. The preparation is not bound by it: it goes
        /// on under `prepareTimeout`, and a retry joins it or finds it cached.
        public var deadline: Duration = .seconds(20)
        /// The longest one preparation may take, download included (the preparer's
        /// `fetch.deadline` is set to it), whether or not a request still waits for it; past it the
        /// preparation is cancelled and its waiters get 504. Default 120 s.
        public var prepareTimeout: Duration = .seconds(120)
        /// Distinct preparations in flight at once, those no request waits for any more included;
        /// a miss past it gets 503 with `Retry-After`. With `prepareTimeout` and the preparer's
        /// admission budget (memory), it bounds the work that outlives requests; `stop()` and
        /// the end of `drain` cancel what is left.
        public var maxPending = 64
        /// libmicrohttpd's worker threads (each serves many connections). Default: one per core,
        /// at least 2. More threads than cores cost hits their speed: on 2 cores, 4 workers
        /// answered warm hits at 0.91× nginx's rate and 99 µs of CPU each, 2 workers at 1.01× and
        /// 84 µs (alternated wrk rounds); a miss never holds a worker (its connection is parked).
        public var threads = max(2, ProcessInfo.processInfo.activeProcessorCount)
        /// Open connections at once; more are refused at accept. Default 4096.
        public var connectionLimit = 4096
        /// Open connections from one address; 0 for no limit. Default 1024, a quarter of
        /// `connectionLimit`'s default: one address cannot take every connection, and a load
        /// balancer's pool of keep-alive connections fits under it. Behind a load balancer every
        /// connection comes from its addresses: raise it (or set 0) if its pool is larger.
        public var perIPLimit = 1024
        /// Seconds a connection may be idle before it is closed. Default 15.
        public var idleTimeout = 15
        /// How long a whole request head may take to arrive, however it is paced (a client
        /// sending a byte now and then never looks idle): counted from the connection's start,
        /// or, on a kept-alive connection, from the previous answer plus `idleTimeout`. A
        /// connection past it is closed. Zero: no bound. Default 10 s.
        public var headerTimeout: Duration = .seconds(10)
        /// Request headers per origin host, for origins that want credentials: the host pattern
        /// (`cdn.example.com`, or `*.example.com` for its subdomains, as `fetch.allowedHosts`)
        /// to the headers (`["Authorization": "Bearer …"]`). A source whose host matches gets
        /// them (an exact pattern's over a wildcard's); they go to its origin only, never to
        /// another host a redirect leads to. Links cannot carry credentials
        /// (`AttachmentLink.credentialsReason`): every device a link is pushed to would see them.
        public var originHeaders: [String: [String: String]] = [:]
        /// How the attachments are prepared: fetch policy (allowed hosts, private networks), long
        /// side, quality, budgets. The library's defaults but one: a download is held in memory
        /// up to 8 MB (`FetchPolicy.spoolThreshold`, 1 MB in a batch) before it streams to disk,
        /// so a photo a request waits for is not first written out and read back (2-5 ms of a
        /// 12 MP JPEG's 60 ms first answer, measured); the preparer's memory budget still
        /// admits each download's in-memory part.
        public var preparer = Self.defaultPreparer

        /// `preparer`'s default.
        static var defaultPreparer: AttachmentPreparer.Configuration {
            var configuration = AttachmentPreparer.Configuration.default
            configuration.fetch.spoolThreshold = 8_000_000
            return configuration
        }
        /// How the cache's errors spell the settings they name (the cache folder is
        /// `Setting.container`); `serve` gives its flags (`--cache`).
        public var cacheSettingNames = SettingNames([.container: "AttachmentServer.Configuration.cacheFolder"])
        /// Where the JSON access log goes: a file path, "-" for standard error, nil for none.
        public var accessLogPath: String? = "-"

        /// The defaults, caching in `cacheFolder`.
        public init(cacheFolder: URL) { self.cacheFolder = cacheFolder }

        /// What is wrong with `originHeaders` (a pattern that is not a host, a header the fetch
        /// policy refuses), or nil.
        public var originHeaderProblem: String? {
            for (pattern, headers) in originHeaders.sorted(by: { $0.key < $1.key }) {
                let host = pattern.hasPrefix("*.") ? String(pattern.dropFirst(2)) : pattern
                guard !host.isEmpty, !host.contains(where: { $0 == "/" || $0 == ":" || $0 == "@" || $0 == "*" || $0.isWhitespace })
                else {
                    return "originHeaders: '\(DisplayText.escaped(pattern))' is not a host ('cdn.example.com', or '*.example.com' for its subdomains)"
                }
                if let problem = preparer.fetch.headerProblem(adding: headers) {
                    return "originHeaders['\(DisplayText.escaped(pattern))']: \(problem)"
                }
            }
            return nil
        }

        /// The headers `originHeaders` gives a source on `host`: a wildcard pattern's, then an
        /// exact one's over them.
        func originHeaders(forHost host: String) -> [String: String] {
            var merged: [String: String] = [:]
            let ordered = originHeaders.sorted { a, b in
                let (wildA, wildB) = (a.key.hasPrefix("*."), b.key.hasPrefix("*."))
                return wildA != wildB ? wildA : a.key < b.key
            }
            for (pattern, headers) in ordered {
                var policy = FetchPolicy()
                policy.allowedHosts = [pattern]
                guard policy.allows(host: host) else { continue }
                for (name, value) in headers {
                    merged = merged.filter { $0.key.lowercased() != name.lowercased() }
                    merged[name] = value
                }
            }
            return merged
        }

        /// What else changes the output than the link: part of every cache key, so a server
        /// restarted with another long side or quality does not answer with the old files.
        var variant: String { "long=\(preparer.limits.maxLongSide);q=\(preparer.limits.quality)" }

        /// The preparer's configuration as the server runs it: the preparation budget for the
        /// whole call and for downloads (and no shorter low-speed cutoff), no retries (the
        /// client retries), no thumbnails (made per link from the cached file).
        var effectivePreparer: AttachmentPreparer.Configuration {
            var configuration = preparer
            // A preparation outlives the request that started it (a retry joins it): the
            // preparer's own call deadline must not end it before the server's budget does.
            configuration.callDeadline = prepareTimeout
            configuration.fetch.deadline = prepareTimeout
            // An origin slow to its first byte is cut off by the deadline, not by an earlier low-speed rule.
            configuration.fetch.lowSpeedTime = max(configuration.fetch.lowSpeedTime, configuration.fetch.deadline)
            configuration.fetch.maxRetries = 0
            configuration.thumbnailSize = nil
            return configuration
        }
    }
}
