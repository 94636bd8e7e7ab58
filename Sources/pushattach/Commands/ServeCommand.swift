import AttachmentServer
import Foundation
import PushAttach

/// `pushattach serve`: an HTTP endpoint a Notification Service Extension fetches attachments
/// through (`AttachmentServer`), until SIGTERM or SIGINT drains it.
struct ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Serve signed attachment links over HTTP: prepared on first request, then cached."

    enum Options {
        static let library = AttachmentServer.Configuration(cacheFolder: URL(fileURLWithPath: "."))

        static let listen = OptionInfo.value(
            "--listen", "HOST:PORT", "The address to listen on ('[::1]:8080' for IPv6, '0.0.0.0:8080' for every interface).",
            default: "127.0.0.1:8080")
        static let cache = OptionInfo.value(
            "--cache", "DIR", "The cache folder (required; created when missing; replicas may share it).",
            completion: .directory)
        static let cacheSize = OptionInfo.number(
            "--cache-size", "MB", "Cache entries kept, in 10^6 bytes; the least recently used go first.",
            default: Double(library.cacheCapacity) / 1e6, in: 0.1...100_000_000)
        static let keyFile = OptionInfo.value(
            "--key-file", "FILE",
            "The signing key: the file's bytes, one trailing newline dropped. Default: the PUSHATTACH_SIGNING_KEY environment variable.",
            completion: .file)
        static let allowUnsigned = OptionInfo.flag(
            "--allow-unsigned", "Serve links without a valid signature (development only: anyone could make the server fetch anything).")
        static let allowSource = OptionInfo.value(
            "--allow-source", "HOSTGLOB",
            "Only fetch from hosts matching HOSTGLOB ('cdn.example.com', or '*.example.com' for subdomains); repeatable.",
            repeatable: true)
        static let originHeader = OptionInfo.value(
            "--origin-header", "HOST:NAME:VALUE",
            "Send header NAME: VALUE to sources on HOST ('cdn.example.com', or '*.example.com' for subdomains), and only to that origin: credentials for an origin, which links cannot carry. Repeatable; visible to other users in the process list, so prefer --origin-headers.",
            repeatable: true)
        static let originHeaders = OptionInfo.value(
            "--origin-headers", "FILE",
            "--origin-header's HOST:NAME:VALUE, one per line ('#' comments), from a file only the server can read.",
            completion: .file)
        static let allowPrivateNetworks = OptionInfo.flag(
            "--allow-private-networks",
            "Allow sources on loopback, private, link-local and other non-public addresses (refused by default, checked at connect time).")
        static let maxAge = OptionInfo.int(
            "--max-age", "SECONDS", "Cache-Control max-age of a prepared file.", default: library.maxAge, in: 0...31_536_000)
        static let deadline = OptionInfo.number(
            "--deadline", "SECONDS",
            "A request not answered by then gets 504 with Retry-After (keep it under the extension's 30 s); the preparation goes on.",
            default: seconds(library.deadline), in: 0.1...600)
        static let prepareTimeout = OptionInfo.number(
            "--prepare-timeout", "SECONDS",
            "The longest one preparation may take, download included; it goes on past --deadline, so a retry joins it or finds it cached.",
            default: seconds(library.prepareTimeout), in: 1...3600)
        static let grace = OptionInfo.number(
            "--grace", "SECONDS", "On SIGTERM or SIGINT: how long requests in flight may take to finish.", default: 10,
            in: 0...600)
        static let drainDelay = OptionInfo.number(
            "--drain-delay", "SECONDS",
            "On SIGTERM or SIGINT: keep taking connections this long while /readyz answers 503, so a load balancer can stop sending them, before the --grace period starts.",
            default: 0, in: 0...600)
        static let rejectionTTL = OptionInfo.number(
            "--rejection-ttl", "SECONDS", "How long a refusal (422, or the origin's 404) is answered from the cache.",
            default: seconds(library.rejectionTTL), in: 0...86_400)
        static let maxPending = OptionInfo.int(
            "--max-pending", "N", "Preparations in flight at once; a miss past it gets 503 with Retry-After.",
            default: library.maxPending, in: 1...4096)
        static let threads = OptionInfo.int(
            "--threads", "N", "HTTP worker threads, each serving many connections (default: one per core, at least 2).", default: nil,
            in: 1...256)
        static let maxConnections = OptionInfo.int(
            "--max-connections", "N", "Open connections at once.", default: library.connectionLimit, in: 1...1_000_000)
        static let perIPLimit = OptionInfo.int(
            "--per-ip-limit", "N",
            "Open connections from one address; 0 for none (behind a load balancer, raise it above its connection pool).",
            default: library.perIPLimit, in: 0...1_000_000)
        static let idleTimeout = OptionInfo.int(
            "--idle-timeout", "SECONDS", "Close a connection idle this long.", default: library.idleTimeout, in: 1...3600)
        static let headerTimeout = OptionInfo.number(
            "--header-timeout", "SECONDS",
            "Close a connection whose request head has not all arrived this long after it opened (or after the previous answer plus --idle-timeout), however slowly it trickles; 0 for no bound.",
            default: seconds(library.headerTimeout), in: 0...3600)
        static let maxLongSide = OptionInfo.int(
            "--max-long-side", "N", "Fit images to N pixels on the long side.",
            default: library.preparer.limits.maxLongSide, in: 16...16384)
        static let quality = OptionInfo.int(
            "--quality", "Q", "JPEG quality, 1-100.", default: library.preparer.limits.quality, in: 1...100)
        static let accessLog = OptionInfo.value(
            "--access-log", "FILE", "Where the JSON access log goes ('-' for stderr, 'off' for none); reopened on SIGHUP.",
            default: "-", completion: .file)

        static let all = [
            listen, cache, cacheSize, keyFile, allowUnsigned, allowSource, originHeader, originHeaders, allowPrivateNetworks, maxAge,
            deadline, prepareTimeout,
            grace,
            drainDelay, rejectionTTL, maxPending, threads, maxConnections, perIPLimit, idleTimeout, headerTimeout, maxLongSide,
            quality, accessLog,
            OptionInfo.help,
        ]

        static func seconds(_ duration: Duration) -> Double { Double(duration.components.seconds) }
    }

    static var doc: CommandDoc { ServeDoc.doc }

    var configuration: AttachmentServer.Configuration
    var grace: Duration
    var drainDelay: Duration

    init(_ arguments: ParsedArguments) throws {
        let command = "pushattach serve"
        guard let cache = arguments.value(Options.cache) else {
            throw UsageError(command: command, message: "--cache DIR is required (where prepared attachments are kept)")
        }
        var configuration = AttachmentServer.Configuration(cacheFolder: URL(fileURLWithPath: cache))
        configuration.preparer.policy.settingNames = FlagNames.serve
        configuration.cacheSettingNames = FlagNames.serve
        (configuration.host, configuration.port) = try Self.address(arguments.value(Options.listen) ?? "127.0.0.1:8080")
        configuration.allowUnsigned = arguments.flag(Options.allowUnsigned)
        configuration.signer = try Self.signer(keyFile: arguments.value(Options.keyFile), command: command)
        if configuration.signer == nil, !configuration.allowUnsigned {
            throw UsageError(
                command: command,
                message: "no signing key: give --key-file FILE or set PUSHATTACH_SIGNING_KEY (or --allow-unsigned, for development)")
        }
        configuration.preparer.fetch.allowedHosts = arguments.all(Options.allowSource)
        configuration.preparer.fetch.allowPrivateNetworks = arguments.flag(Options.allowPrivateNetworks)
        configuration.originHeaders = try Self.originHeaders(
            arguments.all(Options.originHeader), file: arguments.value(Options.originHeaders), into: configuration)
        if let megabytes = try arguments.double(Options.cacheSize, command: command) {
            configuration.cacheCapacity = Int(megabytes * 1e6)
        }
        if let value = try arguments.int(Options.maxAge, command: command) { configuration.maxAge = value }
        if let value = try arguments.double(Options.deadline, command: command) { configuration.deadline = .seconds(value) }
        if let value = try arguments.double(Options.prepareTimeout, command: command) {
            configuration.prepareTimeout = .seconds(value)
        }
        if let value = try arguments.double(Options.rejectionTTL, command: command) {
            configuration.rejectionTTL = .seconds(value)
        }
        if let value = try arguments.int(Options.maxPending, command: command) { configuration.maxPending = value }
        if let value = try arguments.int(Options.threads, command: command) { configuration.threads = value }
        if let value = try arguments.int(Options.maxConnections, command: command) { configuration.connectionLimit = value }
        if let value = try arguments.int(Options.perIPLimit, command: command) { configuration.perIPLimit = value }
        if let value = try arguments.int(Options.idleTimeout, command: command) { configuration.idleTimeout = value }
        if let value = try arguments.double(Options.headerTimeout, command: command) {
            configuration.headerTimeout = .milliseconds(Int((value * 1000).rounded()))
        }
        if let value = try arguments.int(Options.maxLongSide, command: command) {
            configuration.preparer.limits.maxLongSide = value
        }
        if let value = try arguments.int(Options.quality, command: command) { configuration.preparer.limits.quality = value }
        let log = arguments.value(Options.accessLog) ?? "-"
        configuration.accessLogPath = log == "off" ? nil : log
        self.configuration = configuration
        grace = .seconds(try arguments.double(Options.grace, command: command) ?? 10)
        drainDelay = .seconds(try arguments.double(Options.drainDelay, command: command) ?? 0)
    }

    /// `HOST:PORT`, `[V6]:PORT` or `PORT` (on 127.0.0.1).
    static func address(_ text: String) throws(UsageError) -> (String, Int) {
        let invalid = UsageError(
            command: "pushattach serve", message: "--listen '\(text)' is not HOST:PORT ('127.0.0.1:8080', '[::1]:8080')")
        if let port = Int(text), (0...65535).contains(port) { return ("127.0.0.1", port) }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { throw invalid }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw invalid }
        return (host, port)
    }

    /// `--origin-header` values and the lines of `--origin-headers FILE`, by host.
    static func originHeaders(_ given: [String], file: String?, into configuration: AttachmentServer.Configuration) throws(
        UsageError
    ) -> [String: [String: String]] {
        let command = "pushattach serve"
        var entries = given.map { ("--origin-header", $0) }
        if let file {
            let text: String
            do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
                throw UsageError(command: command, message: "--origin-headers \(file): cannot read it: \(error.localizedDescription)")
            }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                entries.append(("--origin-headers \(file):\(number + 1)", trimmed))
            }
        }
        var headers: [String: [String: String]] = [:]
        for (origin, entry) in entries {
            let parts = entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
                // The value may be a secret: the message names the entry's place, never its text.
                throw UsageError(command: command, message: "\(origin): expected HOST:NAME:VALUE ('cdn.example.com:Authorization:Bearer …')")
            }
            headers[parts[0].lowercased(), default: [:]][String(parts[1])] = parts[2].trimmingCharacters(in: .whitespaces)
        }
        var checked = configuration
        checked.originHeaders = headers
        if let problem = checked.originHeaderProblem {
            throw UsageError(command: command, message: "--origin-header: \(problem)")
        }
        return headers
    }

    static func signer(keyFile: String?, command: String) throws(UsageError) -> AttachmentSigner? {
        do {
            if let keyFile { return try AttachmentSigner(keyFile: URL(fileURLWithPath: keyFile)) }
            return try AttachmentSigner(environment: ProcessInfo.processInfo.environment)
        } catch { throw UsageError(command: command, message: error.reason) }
    }

    func run() async throws -> Int32 {
        // A server answers one request after another: freed frames stay for the next one
        // (`MallocTuning.Profile.lowLatency`) instead of going back to the kernel, until the
        // server has gone idle (`releaseMemoryWhenIdle`).
        MallocTuning.apply(.lowLatency)
        let signals = ServeSignals()
        let server: AttachmentServer
        do { server = try AttachmentServer(configuration: configuration) } catch {
            Console.error("pushattach serve: \(error.description)")
            return ExitStatus.fatal
        }
        let trimmer = Task { await Self.releaseMemoryWhenIdle(server) }
        defer { trimmer.cancel() }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        Console.error(
            "pushattach serve: listening on http://\(host):\(server.port) (cache \(configuration.cacheFolder.path))")
        for await signal in signals.stream {
            if signal == SIGHUP {
                server.reopenLog()
                continue
            }
            server.beginDraining()
            Console.error("pushattach serve: \(signal == SIGTERM ? "SIGTERM" : "SIGINT"): draining (up to \(grace))")
            await server.drain(grace: grace, delay: drainDelay)
            Console.error("pushattach serve: stopped")
            return ExitStatus.success
        }
        return ExitStatus.success
    }
}

extension ServeCommand {
    /// How long the server must go without a preparation before what `.lowLatency` kept is
    /// handed back, and how often that is looked at.
    static let idleBeforeRelease: Duration = .seconds(10)
    static let idleCheckEvery: Duration = .seconds(5)

    /// Hands the memory kept for the next preparation back to the kernel once per idle spell:
    /// at the first check (every `idleCheckEvery`) when no preparation has run for
    /// `idleBeforeRelease`, so 10-15 s after the latest one ended. `malloc_trim` holds each
    /// arena's lock while it walks it, on a thread of the shared pool: once per spell, and only
    /// when nothing is being prepared.
    static func releaseMemoryWhenIdle(_ server: AttachmentServer) async {
        var released: ContinuousClock.Instant?
        while true {
            do { try await Task.sleep(for: idleCheckEvery) } catch { return }
            let activity = server.preparationActivity
            guard activity.inFlight == 0, let ended = activity.lastEnded, ended != released,
                ContinuousClock.now - ended >= idleBeforeRelease
            else { continue }
            MallocTuning.releaseFreeMemory()
            released = ended
        }
    }
}

/// SIGTERM, SIGINT and SIGHUP as a stream (their default actions turned off).
final class ServeSignals: @unchecked Sendable {
    let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init() {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        self.stream = stream
        sources = [SIGTERM, SIGINT, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }
}
