import Foundation
import PushAttach
import PushAttachBatch

/// `pushattach prepare INPUT... --container DIR`: download, check, fit and write attachments.
struct PrepareCommand: Command {
    static let name = "prepare"
    static let abstract = "Download media URLs into a container of attachment files iOS accepts, with a manifest."
    /// The option table: parser, `--help`, man page and completions all read it. Defaults come
    /// from the library's own types, so a run without the option gets what `--help` says.
    enum Options {
        static let library = AttachmentPreparer.Configuration()

        static let container = OptionInfo.value(
            "--container", short: "-o", "DIR", "The output folder (required; created when missing).",
            completion: .directory)
        static let thumbnail = OptionInfo.int(
            "--thumbnail", "N", "Also write a thumbnail whose long side is N pixels.", default: nil, in: 16...4096)
        static let quality = OptionInfo.int(
            "--quality", "Q", "JPEG quality, 1-100.", default: library.limits.quality, in: 1...100)
        /// The limits `verify` takes too, with the same help and defaults.
        static let maxLongSide = LimitOptions.maxLongSide
        static let pixelBudget = LimitOptions.pixelBudget
        static let decodedBudget = LimitOptions.decodedBudget
        static let imageInputCap = LimitOptions.imageInputCap
        static let memoryBudget = OptionInfo.number(
            "--memory-budget", "MB",
            "The memory the items in flight may reserve together, in 10^6 bytes: an item waits until its download and its decode fit; one larger than the whole budget runs alone.",
            default: Double(library.admissionBudget) / 1e6, in: 1...1_000_000)
        static let spoolBudget = OptionInfo.number(
            "--spool-budget", "MB",
            "The disk downloads over \(library.fetch.spoolThreshold / 1_000_000) MB may take together in DIR/.spool while they stream, in 10^6 bytes: a download waits for room (up to --timeout), one larger than the whole budget runs alone.",
            default: Double(library.spoolBudget) / 1e6, in: 1...10_000_000)
        static let stableNames = OptionInfo.flag(
            "--stable-names", "Name-based UUIDs of the URL, so re-runs give identical names.")
        static let rewrite = OptionInfo.value(
            "--rewrite", "OUT.jsonl",
            "After the run, write each push payload of the INPUTs to OUT.jsonl (one per line) pointing at the prepared files: each media URL becomes --base-url + the file's path in DIR, with the type hint in the convention's own key (see REWRITING PAYLOADS).",
            completion: .file)
        static let baseURL = OptionInfo.value(
            "--base-url", "URL", "Where DIR will be served from, for --rewrite (upload DIR there yourself: aws s3 sync, rclone, gsutil rsync).")
        static let dropRefused = OptionInfo.flag(
            "--drop-refused", "With --rewrite, leave out payloads whose media was refused (by default they are written without it, with a pushattach_error note).")
        static let recursive = OptionInfo.flag(
            "--recursive", short: "-r", "A folder INPUT gives the media files in its sub-folders too, not only its own.")
        static let resume = OptionInfo.flag(
            "--resume", "Continue an interrupted run: skip what DIR's manifest has prepared.")
        static let shard = OptionInfo.value(
            "--shard", "K/N",
            "Prepare only the items whose URL hashes to shard K of N (0 <= K < N), into a DIR the other shards share (its journal is DIR/manifest.K-of-N.jsonl; the last shard to finish writes manifest.json). 'auto' reads K and N from a Slurm, Kubernetes Indexed Job, AWS Batch or Cloud Run array task's environment; 'auto/N' gives N.")
        static let strict = OptionInfo.flag(
            "--strict",
            "A type mismatch between the bytes and the claims, any codec warning and a malformed Exif block reject the item."
        )
        static let acceptDamaged = OptionInfo.flag(
            "--accept-damaged",
            "Prepare images whose data is damaged (cut short, \"Corrupt JPEG data\") from what decodes, with a warning; without it they are rejected."
        )
        static let json = OptionInfo.flag(
            "--json", "Print each manifest entry to stdout as a JSON line as it finishes.")
        static let report = OptionInfo.flag(
            "--report", "At the end, also write DIR/report.html (as 'pushattach report DIR' does).")
        static let quiet = OptionInfo.flag(
            "--quiet", short: "-q",
            "Show only the summary: no status line, no line per item (--json's lines still go to stdout).")
        static let verbose = OptionInfo.flag(
            "--verbose", short: "-v", "Show every item as it finishes, with each of its warnings and its timings.")
        static let allowPrivateNetworks = OptionInfo.flag(
            "--allow-private-networks",
            "Allow loopback, private, link-local and other non-public addresses (refused by default, checked at connect time)."
        )
        static let allowHost = OptionInfo.value(
            "--allow-host", "PATTERN",
            "Only fetch from hosts matching PATTERN ('example.com', or '*.example.com' for subdomains); repeatable.",
            repeatable: true)
        static let maxRedirects = OptionInfo.int(
            "--max-redirects", "N", "Redirects to follow.", default: library.fetch.maxRedirects, in: 0...20)
        static let timeout = OptionInfo.number(
            "--timeout", "SECONDS",
            "The whole budget of one URL's attempt: connect, redirects, the wait for the first byte and the body. No other cutoff is shorter unless set below.",
            default: seconds(library.fetch.deadline), in: 0.1...3600)
        static let connectTimeout = OptionInfo.number(
            "--connect-timeout", "SECONDS", "The longest one TCP (and TLS) connection attempt may take.",
            default: seconds(library.fetch.connectTimeout), in: 0.1...3600)
        static let lowSpeedTime = OptionInfo.number(
            "--low-speed-time", "SECONDS",
            "Give up on a download that moves under \(library.fetch.lowSpeedLimit) bytes a second for this long, the wait for the first byte included (default: as long as --timeout, so only --timeout cuts a slow origin off).",
            default: nil, in: 1...3600)
        static let concurrency = OptionInfo.int(
            "--concurrency", short: "-j", "N", "Items in flight at once.", default: library.maxInFlight, in: 1...256)
        static let perHost = OptionInfo.int(
            "--per-host", "N", "Downloads at once from one host.", default: library.perHost, in: 1...256)
        static let retries = OptionInfo.int(
            "--retries", "N", "Retries on connection errors, 429 and 5xx.", default: library.fetch.maxRetries,
            in: 0...10)

        static let all = [
            container, thumbnail, maxLongSide, quality, stableNames, recursive, rewrite, baseURL, dropRefused, resume, shard, strict, acceptDamaged, json, report, quiet,
            verbose, pixelBudget, decodedBudget, imageInputCap, memoryBudget, spoolBudget,
            allowPrivateNetworks, allowHost, maxRedirects, timeout, connectTimeout, lowSpeedTime, concurrency, perHost, retries,
            OptionInfo.help,
        ]

        static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
    }

    static var doc: CommandDoc {
        CommandDoc(
            title: "pushattach prepare",
            summary: "Turn media URLs into attachment files iOS accepts, in a container folder, with a manifest.",
            overview: [
                .paragraph(
                    "Each item is downloaded (or read, for a local file), its type taken from the bytes (a disagreeing media_type, Content-Type or URL extension is a warning), checked against iOS's rules, and images fitted to the limits (WebP, HEIC, HEIF and AVIF transcoded to JPEG, or PNG with alpha; animated WebP to an animated GIF; a GIF over 10 MB or the decoded budget scaled down, or kept as its first frame when over 300 frames or 60 s). Files are written atomically as DIR/{Images,Audio,Video}/<UUID>-<name>.<ext>; thumbnails go to DIR/Thumbnails/. DIR/manifest.jsonl gets one line per item as it finishes, and DIR/manifest.json is written at the end (docs/MANIFEST.md): index, input, line, id, status (prepared | rejected | failed), action (what was done, in the words verify prints), error_code, reason, file, identifier, uti, format, category, bytes, width, height, frames, source_width, source_height, sha256, transform, thumbnail, warnings, timings."
                )
            ],
            usage: "pushattach prepare INPUT... --container DIR [options]",
            arguments: [
                ArgumentInfo(
                    name: "INPUT",
                    help:
                        "A URL list (one URL per line, optionally followed by a media_type; '#' comments), JSON lines ({\"url\", \"media_type\", \"id\"}, or a push payload per line), a push payload JSON file (see PUSH PAYLOADS), a local media file, a folder (every media file in it, as mogrify takes one; its sub-folders too with -r), or '-' for standard input (URLs, JSON lines, or paths of local media files: find . -name '*.jpg' | pushattach prepare - -o DIR). An INPUT that cannot be read is a failed item; when none can be, nothing is created (exit 64)."
                )
            ],
            options: Options.all,
            notes: payloadNotes + [
                .paragraph(
                    "Progress goes to stderr: a status line on a terminal, plain lines otherwise, then a summary. --quiet leaves only the summary; --verbose shows every item with its warnings and timings."
                ),
                .paragraph(
                    "SHARDS: --shard K/N splits one list over N processes or machines sharing DIR (a shared file system): each reads the whole list and takes the items whose URL hashes to K (the first 8 bytes of SHA-256 of the URL, big-endian, mod N), so an item always lands in the same shard and identical URLs are still downloaded once. Each shard writes DIR/manifest.K-of-N.jsonl under its own lock and, when it finishes, DIR/manifest.K-of-N.done; the last shard to finish writes manifest.json, in input order ('pushattach merge DIR' does the same by hand). With --stable-names the file names do not depend on N. A killed shard is rerun with the same --shard and --resume. --shard auto reads SLURM_ARRAY_TASK_ID (minus SLURM_ARRAY_TASK_MIN) and SLURM_ARRAY_TASK_COUNT, JOB_COMPLETION_INDEX (Kubernetes), AWS_BATCH_JOB_ARRAY_INDEX or CLOUD_RUN_TASK_INDEX and CLOUD_RUN_TASK_COUNT; Kubernetes and AWS Batch set no count: pass auto/N. Input problems (an unreadable INPUT, a bad line) are recorded by shard 0."
                ),
                .paragraph(
                    "Ctrl-C (SIGINT) or SIGTERM stops reading input, abandons unfinished items, writes the manifest and exits 130 (SIGINT) or 143 (SIGTERM); run again with --resume to finish. A second run on a container in use is refused (exit 2) naming the running one's PID."
                ),
                .paragraph(
                    "A closed standard output or error ('prepare … --json | head -3', '2>&-') stops the printing to it, not the run: every item is still prepared, manifest.json is written, the lock released and DIR/.spool emptied, and the exit status is the run's own (0, 1 or 2), as if the output had been read."
                ),
            ],
            exitStatus:
                "0 every item prepared, 1 some rejected or failed, 2 fatal (container not writable, disk full, in use), 64 usage error, 130 interrupted (SIGINT), 143 terminated (SIGTERM). A closed stdout or stderr does not change it: the run finishes.",
            examples: [
                "pushattach prepare urls.txt --container out --thumbnail 256",
                "pushattach prepare payload.json --container out --json | jq -r .file",
                "pushattach prepare urls.txt --container out --resume --stable-names",
                "pushattach prepare urls.txt -o out -j 32 -q",
                "pushattach prepare urls.txt -o /shared/out --stable-names --shard auto   # in each task of a job array",
                "pushattach prepare export.jsonl -o out --rewrite out.jsonl --base-url https://cdn.example.com/push/ && aws s3 sync out s3://bucket/push/",
            ])
    }

    /// The push payload conventions, from the table the reader uses (`PayloadConventions.all`).
    static var payloadNotes: [TextBlock] {
        [
            .paragraph(
                "PUSH PAYLOADS: a JSON object (a file, an element of a JSON array, or a JSON line) is searched at any depth for these keys, and gives one item per distinct URL (two spellings of one URL are one item). A problem names the file and the line (the object's first line in a JSON file). Keys, with the smallest payload for each:"
            ),
            .definitions(
                BatchInput.payloadConventions.map { .init(term: $0.key, text: "\($0.summary) Example: \($0.example)") }),
            .paragraph(
                "A push that names no media (a text-only notification: it has aps, notification, message, data, contents, headings or apple_push) is counted as 'without media' in the summary, not as failed, and does not change the exit status."
            ),
            .paragraph(
                "REWRITING PAYLOADS: --rewrite OUT.jsonl --base-url URL writes each payload of the INPUTs again, one per line, with each media URL replaced by URL + the prepared file's path in DIR (Images/<UUID>-cat.jpg). The type hint goes in the convention's own key: media_type gets the UTI (url, attachment, attachment-url, media_url); att's type, com.urbanairship.media_attachment's options.type and asset_url's asset_file_type the extension; ct_mediaType the category; fcm_options.image, notification.image, data.image, ios_attachments, cioImage and mp_media_url have no type key. Media that was refused is removed and the payload gets a pushattach_error note (or is left out with --drop-refused). Upload DIR to URL with your own tools: aws s3 sync DIR s3://BUCKET/PREFIX/, rclone sync DIR REMOTE:BUCKET/PREFIX, gsutil -m rsync -r DIR gs://BUCKET/PREFIX. docs/REWRITE.md has a before/after for each convention."
            ),
        ]
    }

    /// Downloads, limits, rules and budgets: the library's configuration, flag by flag.
    /// The library's configuration, its messages naming this command's flags.
    var configuration: AttachmentPreparer.Configuration = {
        var configuration = AttachmentPreparer.Configuration()
        configuration.policy.settingNames = FlagNames.commandLine
        return configuration
    }()
    /// Resume, shard and report.
    var batchOptions = AttachmentBatch.Options()
    /// DIR.
    var folder: URL
    var rewriteOutput: URL?
    var rewriteBase: String?
    var dropRefused = false
    /// The INPUT arguments as typed (`-` is standard input).
    var inputs: [String]
    var json: Bool
    var report: Bool
    var quiet: Bool
    var verbose: Bool
    var verbosity: PrepareReporter.Verbosity { quiet ? .quiet : verbose ? .verbose : .normal }
    var hadContainer: Bool

    init(_ arguments: ParsedArguments) throws {
        let command = "pushattach prepare"
        hadContainer = arguments.value(Options.container) != nil
        folder = URL(fileURLWithPath: arguments.value(Options.container) ?? ".")
        inputs = arguments.positionals
        json = arguments.flag(Options.json)
        report = arguments.flag(Options.report)
        batchOptions.writeReport = report
        quiet = arguments.flag(Options.quiet)
        verbose = arguments.flag(Options.verbose)
        // Absent options keep the library's defaults (the ones --help shows).
        if let n = try arguments.int(Options.thumbnail, command: command) { configuration.thumbnailSize = n }
        if let n = try arguments.int(Options.quality, command: command) { configuration.limits.quality = n }
        try LimitOptions.parse(arguments, command: command).apply(to: &configuration.policy)
        if let megabytes = try arguments.double(Options.memoryBudget, command: command) {
            configuration.admissionBudget = Int(megabytes * 1_000_000)
        }
        if let megabytes = try arguments.double(Options.spoolBudget, command: command) {
            configuration.spoolBudget = Int(megabytes * 1_000_000)
        }
        configuration.stableNames = arguments.flag(Options.stableNames)
        batchOptions.resume = arguments.flag(Options.resume)
        batchOptions.recursive = arguments.flag(Options.recursive)
        rewriteOutput = arguments.value(Options.rewrite).map { URL(fileURLWithPath: $0) }
        rewriteBase = arguments.value(Options.baseURL)
        dropRefused = arguments.flag(Options.dropRefused)
        if let text = arguments.value(Options.shard) {
            do throws(AttachmentError) { batchOptions.shard = try AttachmentBatch.Options.shard(parsing: text) } catch {
                throw UsageError(command: command, message: "--shard \(text): \(error.reason)")
            }
        }
        configuration.policy.strict = arguments.flag(Options.strict)
        configuration.policy.acceptDamaged = arguments.flag(Options.acceptDamaged)
        configuration.fetch.allowPrivateNetworks = arguments.flag(Options.allowPrivateNetworks)
        configuration.fetch.allowedHosts = arguments.all(Options.allowHost)
        if let n = try arguments.int(Options.maxRedirects, command: command) { configuration.fetch.maxRedirects = n }
        if let seconds = try arguments.double(Options.timeout, command: command) {
            configuration.fetch.deadline = .milliseconds(Int64(seconds * 1000))
        }
        if let seconds = try arguments.double(Options.connectTimeout, command: command) {
            configuration.fetch.connectTimeout = .milliseconds(Int64(seconds * 1000))
        }
        // Unless set, the low-speed cutoff is the whole budget: the library's 10 s would otherwise
        // end a download that waits 12 s for its first byte under --timeout 60.
        configuration.fetch.lowSpeedTime =
            try arguments.double(Options.lowSpeedTime, command: command).map { .milliseconds(Int64($0 * 1000)) }
            ?? configuration.fetch.deadline
        if let n = try arguments.int(Options.concurrency, command: command) { configuration.maxInFlight = n }
        if let n = try arguments.int(Options.perHost, command: command) { configuration.perHost = n }
        if let n = try arguments.int(Options.retries, command: command) { configuration.fetch.maxRetries = n }
    }

    /// The batch this command runs.
    var batch: AttachmentBatch { AttachmentBatch(folder: folder, configuration: configuration, options: batchOptions) }

    /// The INPUT arguments as the batch reads them.
    var batchInputs: [BatchInput] { inputs.map { $0 == "-" ? .standardInput : .file(atPath: $0) } }

    func validate() throws {
        let command = "pushattach prepare"
        guard hadContainer else {
            throw UsageError(
                command: command, message: "--container DIR is required: the folder to write attachments to")
        }
        guard !inputs.isEmpty else {
            throw UsageError(command: command, message: "no INPUT given: name a URL list, payload, media file or '-'")
        }
        try validateRewrite(command: command)
        guard !(quiet && verbose) else {
            throw UsageError(
                command: command, message: "--quiet shows only the summary and --verbose every item: choose one")
        }
        guard !(configuration.policy.strict && configuration.policy.acceptDamaged) else {
            throw UsageError(
                command: command,
                message: "--strict refuses every codec warning and --accept-damaged accepts damaged images: choose one")
        }
        for pattern in configuration.fetch.allowedHosts where pattern.isEmpty || pattern.contains("/") {
            throw UsageError(
                command: command,
                message: "--allow-host '\(pattern)' is not a host pattern (example.com or *.example.com)")
        }
        // Nothing to read is a mistake in the call: say so before the container is created. (When
        // some INPUT can be read, the others become failed entries and the run goes on.)
        let unreadable = inputs.compactMap { input in Self.unreadable(input).map { (input, $0) } }
        if unreadable.count == inputs.count {
            throw UsageError(
                command: command,
                message: "no INPUT can be read: " + unreadable.map { "\($0.0) (\($0.1))" }.joined(separator: ", "))
        }
        // A run in progress holds the lock: let `run` refuse that (exit 2, naming the holder's
        // PID) rather than advise --resume, which would be refused too.
        if !batchOptions.resume, !AttachmentBatch.isInUse(folder),
            let size = try? FileManager.default.attributesOfItem(atPath: batch.journal.path)[.size] as? Int,
            size > 0
        {
            throw UsageError(
                command: command,
                message:
                    "\(folder.path) already holds a run's manifest; pass --resume to continue it, or choose an empty --container"
            )
        }
    }

    /// `--rewrite`, `--base-url` and `--drop-refused` together, with files to read again and
    /// the whole run's manifest.
    private func validateRewrite(command: String) throws {
        guard rewriteOutput != nil || rewriteBase != nil || dropRefused else { return }
        guard rewriteOutput != nil, let base = rewriteBase else {
            throw UsageError(command: command, message: "--rewrite OUT.jsonl and --base-url URL go together (and --drop-refused with them)")
        }
        guard let url = URL(string: base), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else { throw UsageError(command: command, message: "--base-url '\(base)' is not an http(s) URL") }
        guard !inputs.contains("-") else {
            throw UsageError(
                command: command, message: "--rewrite reads the payloads again after the run: give them as files, not '-'")
        }
        guard batchOptions.shard == nil else {
            throw UsageError(
                command: command,
                message: "--rewrite needs the whole run's manifest, which a shard does not have: rewrite once every shard is done and merged, with the library's AttachmentBatch.rewrite")
        }
    }

    /// Why `input` cannot be read as an INPUT, or nil when it can (`-`, standard input, always can).
    static func unreadable(_ input: String) -> String? {
        guard input != "-" else { return nil }
        guard FileManager.default.fileExists(atPath: input) else {
            return input.contains("://")
                ? "no such file; a URL goes in a list file, or on standard input: echo URL | pushattach prepare - -o DIR"
                : "no such file or folder"
        }
        return FileManager.default.isReadableFile(atPath: input) ? nil : "not readable: permission denied"
    }

    func run() async throws -> Int32 {
        let reporter = PrepareReporter(json: json, terminal: Console.stderrIsTerminal, verbosity: verbosity)
        let batchInputs = batchInputs
        let recursive = batchOptions.recursive
        // An empty list (or a folder with nothing in it) would make an empty container and exit 0.
        if BatchInput.holdsNothing(batchInputs, recursive: recursive) {
            Console.error(
                "pushattach prepare: nothing to prepare: \(inputs.joined(separator: ", ")) name\(inputs.count == 1 ? "s" : "") no URL, payload or media file; no container was made")
            return ExitStatus.someFailed
        }
        Thread.detachNewThread { reporter.meter.setTotal(BatchInput.itemCount(batchInputs, recursive: recursive)) }
        let batch = batch
        let task = Task { () -> Result<BatchSummary, AttachmentError> in
            do throws(AttachmentError) {
                return .success(try await batch.run(batchInputs) { reporter.handle($0) })
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
            if let written = summary.report { Console.error("report:    \(written.path)") }
            if let error = summary.reportError {
                Console.error("pushattach prepare: cannot write the report: \(error)")
                return ExitStatus.fatal
            }
            if summary.interrupted || task.isCancelled { return ExitStatus.interrupted(by: received.value) }
            if let output = rewriteOutput, let base = rewriteBase.flatMap(URL.init(string:)) {
                do {
                    let done = try batch.rewrite(batchInputs, to: output, baseURL: base, dropRefused: dropRefused)
                    Console.error(
                        "rewritten: \(done.rewritten + done.withErrors) payload\(done.rewritten + done.withErrors == 1 ? "" : "s") (\(done.withErrors) with refused media removed, \(done.dropped) dropped) in \(output.path)")
                } catch {
                    Console.error("pushattach prepare: \(error.description)")
                    return ExitStatus.fatal
                }
            }
            return summary.rejected == 0 && summary.failed == 0 ? ExitStatus.success : ExitStatus.someFailed
        case .failure(let error):
            reporter.finishFailed(folder: folder, journal: batch.journal)
            Console.error("pushattach prepare: \(error.description)")
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
