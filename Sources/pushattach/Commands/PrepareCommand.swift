import Foundation
import ImageEngine
import Pipeline

/// `pushattach prepare INPUT... --container DIR`: download, check, fit and write attachments.
struct PrepareCommand: Command {
    static let name = "prepare"
    static let abstract = "Download media URLs into a container of attachment files iOS accepts, with a manifest."
    static let help = """
        OVERVIEW: Turn media URLs into attachment files iOS accepts, in a container folder, with a manifest.

        Each item is downloaded (or read, for a local file), its type taken from the bytes (a
        disagreeing media_type, Content-Type or URL extension is a warning), checked against iOS's
        rules, and images fitted to the limits (WebP transcoded to JPEG, or PNG with alpha). Files
        are written atomically as DIR/{Images,Audio,Video}/<UUID>-<name>.<ext>; thumbnails go to
        DIR/Thumbnails/. DIR/manifest.jsonl gets one line per item as it finishes, and
        DIR/manifest.json is written at the end: input, line, status (prepared | rejected |
        failed), reason, file, identifier, uti, format, category, bytes, width, height, frames,
        sha256, transform, thumbnail, warnings, timings.

        USAGE: pushattach prepare INPUT... --container DIR [options]

        ARGUMENTS:
          INPUT                   A URL list (one URL per line, optionally followed by a media_type;
                                  '#' comments), JSON lines ({"url", "media_type", "id"}), a push
                                  payload JSON file, a local media file, or '-' for standard input.

        OPTIONS:
          --container DIR         The output folder (required; created when missing).
          --thumbnail N           Also write a thumbnail whose long side is N pixels.
          --max-long-side N       Fit images to N pixels on the long side (default 2048).
          --quality Q             JPEG quality, 1-100 (default 85).
          --stable-names          Name-based UUIDs of the URL, so re-runs give identical names.
          --resume                Continue an interrupted run: skip what DIR's manifest has prepared.
          --strict                A type mismatch between the bytes and the claims, any codec warning
                                  and a malformed Exif block reject the item.
          --accept-damaged        Prepare images whose data is damaged (cut short, "Corrupt JPEG data")
                                  from what decodes, with a warning; without it they are rejected.
          --json                  Print each manifest entry to stdout as a JSON line as it finishes.
          --allow-private-networks
                                  Allow loopback, private, link-local and other non-public addresses
                                  (refused by default, checked at connect time).
          --allow-host PATTERN    Only fetch from hosts matching PATTERN ('example.com', or
                                  '*.example.com' for subdomains); repeatable.
          --max-redirects N       Redirects to follow (default 5).
          --timeout SECONDS       Deadline per URL and attempt, redirects included (default 25).
          --concurrency N         Items in flight at once (default 16).
          --per-host N            Downloads at once from one host (default 6).
          --retries N             Retries on connection errors, 429 and 5xx (default 2).
          -h, --help              Show this help.

        Progress goes to stderr: a status line on a terminal, plain lines otherwise, then a summary.
        Ctrl-C (SIGINT) or SIGTERM stops reading input, abandons unfinished items, writes the
        manifest and exits 130 (SIGINT) or 143 (SIGTERM); run again with --resume to finish.
        A second run on a container in use is refused (exit 2) naming the running one's PID.

        EXIT STATUS: 0 every item prepared, 1 some rejected or failed, 2 fatal (container not
        writable, disk full, in use), 64 usage error, 130 interrupted (SIGINT), 143 terminated
        (SIGTERM).

        EXAMPLES:
          pushattach prepare urls.txt --container out --thumbnail 256
          pushattach prepare payload.json --container out --json | jq -r .file
          pushattach prepare urls.txt --container out --resume --stable-names
        """
    static let spec = OptionSpec(
        flags: ["--stable-names", "--resume", "--strict", "--accept-damaged", "--json", "--allow-private-networks"],
        values: [
            "--container", "--thumbnail", "--max-long-side", "--quality", "--max-redirects", "--timeout",
            "--concurrency", "--per-host", "--retries",
        ],
        repeatable: ["--allow-host"], positionals: "INPUT")

    var options: PrepareOptions
    var json: Bool
    var hadContainer: Bool

    init(_ arguments: ParsedArguments) throws {
        let command = "pushattach prepare"
        hadContainer = arguments.value("--container") != nil
        options = PrepareOptions(
            container: URL(fileURLWithPath: arguments.value("--container") ?? "."), inputs: arguments.positionals)
        json = arguments.flag("--json")
        if arguments.value("--thumbnail") != nil {
            options.limits.thumbnailSize = try arguments.int(
                "--thumbnail", default: 256, in: 16...4096, command: command)
        }
        options.limits.maxLongSide = try arguments.int(
            "--max-long-side", default: 2048, in: 16...16384, command: command)
        options.limits.quality = try arguments.int("--quality", default: 85, in: 1...100, command: command)
        options.stableNames = arguments.flag("--stable-names")
        options.resume = arguments.flag("--resume")
        options.strict = arguments.flag("--strict")
        options.acceptDamaged = arguments.flag("--accept-damaged")
        options.fetch.allowPrivateNetworks = arguments.flag("--allow-private-networks")
        options.fetch.allowedHosts = arguments.all("--allow-host")
        options.fetch.maxRedirects = try arguments.int("--max-redirects", default: 5, in: 0...20, command: command)
        let timeout = try arguments.double("--timeout", default: 25, in: 0.1...3600, command: command)
        options.fetch.deadline = .milliseconds(Int64(timeout * 1000))
        options.maxInFlight = try arguments.int("--concurrency", default: 16, in: 1...256, command: command)
        options.perHost = try arguments.int("--per-host", default: 6, in: 1...256, command: command)
        options.fetch.maxRetries = try arguments.int("--retries", default: 2, in: 0...10, command: command)
    }

    func validate() throws {
        let command = "pushattach prepare"
        guard hadContainer else {
            throw UsageError(
                command: command, message: "--container DIR is required: the folder to write attachments to")
        }
        guard !options.inputs.isEmpty else {
            throw UsageError(command: command, message: "no INPUT given: name a URL list, payload, media file or '-'")
        }
        guard !(options.strict && options.acceptDamaged) else {
            throw UsageError(
                command: command,
                message: "--strict refuses every codec warning and --accept-damaged accepts damaged images: choose one")
        }
        for pattern in options.fetch.allowedHosts where pattern.isEmpty || pattern.contains("/") {
            throw UsageError(
                command: command,
                message: "--allow-host '\(pattern)' is not a host pattern (example.com or *.example.com)")
        }
        let journal = options.container.appendingPathComponent("manifest.jsonl").path
        // A run in progress holds the lock: let `run` refuse that (exit 2, naming the holder's
        // PID) rather than advise --resume, which would be refused too.
        if !options.resume, !Self.containerInUse(options.container),
            let size = try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int,
            size > 0
        {
            throw UsageError(
                command: command,
                message:
                    "\(options.container.path) already holds a run's manifest; pass --resume to continue it, or choose an empty --container"
            )
        }
    }

    /// True when another process holds the container's lock right now.
    static func containerInUse(_ container: URL) -> Bool {
        guard FileManager.default.fileExists(atPath: container.appendingPathComponent(ContainerLock.fileName).path)
        else { return false }
        do {
            let lock = try ContainerLock(directory: container.standardizedFileURL)
            lock.release()
            return false
        } catch {
            if case .locked = error { return true }
            return false
        }
    }

    func run() async throws -> Int32 {
        let reporter = PrepareReporter(json: json, terminal: Console.stderrIsTerminal)
        let inputs = options.inputs
        Thread.detachNewThread { reporter.meter.setTotal(InputCounter.count(inputs)) }
        let preparer = Preparer(options: options)
        let task = Task { () -> Result<PrepareSummary, PrepareFailure> in
            do throws(PrepareFailure) {
                return .success(try await preparer.run { reporter.handle($0) })
            } catch {
                return .failure(error)
            }
        }
        let received = SignalBox()
        let signals = SignalWatch { signal in
            received.set(signal)
            reporter.interrupted(signal)
            task.cancel()
        }
        defer { signals.stop() }
        let ticker = reporter.startTicker()
        let result = await task.value
        ticker?.cancel()
        switch result {
        case .success(let summary):
            reporter.finish(summary)
            if summary.interrupted || task.isCancelled { return ExitStatus.interrupted(by: received.value) }
            return summary.allPrepared ? ExitStatus.success : ExitStatus.someFailed
        case .failure(let failure):
            reporter.finish(failure.summary)
            Console.error("pushattach prepare: \(failure)")
            return ExitStatus.fatal
        }
    }
}

/// The signal that stopped the run, if any.
final class SignalBox: @unchecked Sendable {
    private let lock = NSLock()
    private var number: Int32?
    var value: Int32? { lock.withLock { number } }
    func set(_ signal: Int32) { lock.withLock { if number == nil { number = signal } } }
}

/// SIGINT and SIGTERM, handled the same way: the first asks the run to stop (unfinished items
/// are abandoned, the manifest is written); the run then exits 128 + the signal's number: 130
/// for SIGINT, 143 for SIGTERM, as a shell reports a process killed by that signal. A second
/// signal exits at once with the same status.
final class SignalWatch: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var count = 0

    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                let seen = self.lock.withLock {
                    self.count += 1
                    return self.count
                }
                if seen > 1 { _exit(ExitStatus.interrupted(by: number)) }
                handler(number)
            }
            source.resume()
            sources.append(source)
        }
    }

    func stop() { for source in sources { source.cancel() } }
}
