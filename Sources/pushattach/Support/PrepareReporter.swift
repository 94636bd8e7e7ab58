import Foundation
import PushAttach
import PushAttachBatch

/// What `prepare` shows while it runs. Normally: on a terminal, one status line on stderr
/// redrawn in place and a line per item that was not prepared or has warnings; otherwise one
/// plain line per item. A prepared item's line names what was done to it and its first warning,
/// compactly: `prepared Images/…-cat.jpg <- URL [transcoded webp -> jpeg, resized to 2048x1536,
/// thumbnail] warning: URL extension "png" says PNG, but the bytes are WebP (image); using webp`.
/// Quiet: only the summary. Verbose: every item, with each warning and its timings. `--json` puts
/// each entry on stdout as it finishes, whatever the verbosity. Text from the entries (inputs,
/// reasons, notes) is escaped before it is shown (`DisplayText`), and every line again on its
/// way out.
final class PrepareReporter: @unchecked Sendable {
    enum Verbosity: Sendable {
        case quiet, normal, verbose
    }

    let meter = ProgressMeter()
    private let json: Bool
    private let terminal: Bool
    private let verbosity: Verbosity
    private let lock = NSLock()
    private var statusShown = false
    /// What happened to the prepared items, for the summary.
    private var counts = (transcoded: 0, resized: 0, oriented: 0, thumbnails: 0, warned: 0)
    /// Items refused as private or loopback addresses so far.
    private var privateRefusals = 0
    /// Items finished per status, for the summary of a run that failed before its end.
    private var finished: [BatchEntry.Status: Int] = [:]
    /// Whether any line went to stderr before the summary (which then follows a blank line).
    private var saidAnything = false

    init(json: Bool, terminal: Bool, verbosity: Verbosity = .normal) {
        self.json = json
        // Quiet draws no status line: the terminal gets the summary alone.
        self.terminal = terminal && verbosity != .quiet
        self.verbosity = verbosity
    }

    func handle(_ event: AttachmentBatch.Event) {
        switch event {
        case .started, .cancelled: break
        case .skipped: meter.skippedOne()
        case .note(let text):
            if verbosity != .quiet { say("note: \(Self.shown(text))") }
        case .finished(let entry):
            meter.finished(entry)
            lock.withLock { finished[entry.status, default: 0] += 1 }
            if entry.status == .prepared { count(entry) }
            // The manifest's own writer: its keys in the declared order (docs/MANIFEST.md).
            if json { lock.withLock { Console.json(entry.jsonLine()) } }
            let entry = displayed(entry)
            switch verbosity {
            case .quiet: break
            case .verbose: say(([Self.plainLine(entry, warnings: false)] + Self.detailLines(entry)).joined(separator: "\n"))
            case .normal:
                if !terminal || !entry.warnings.isEmpty {
                    say(Self.plainLine(entry))
                } else if entry.status != .prepared {
                    say("\(entry.status.rawValue): \(Self.shown(Self.place(entry))): \(Self.shown(entry.reason ?? ""))")
                }
            }
        }
    }

    func interrupted(_ signal: Int32) {
        guard verbosity != .quiet else { return }
        say("interrupted: finishing the manifest (press Ctrl-C again to quit at once)")
    }

    /// Redraws the status line twice a second on a terminal.
    func startTicker() -> Task<Void, Never>? {
        guard terminal else { return nil }
        return Task.detached { [self] in
            while !Task.isCancelled {
                drawStatus()
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// `entry` as its console line shows it: a refused private address without its URL again at
    /// the end, and with the setting that would let it through only the first time (the summary
    /// says it once more), rendered from the typed error.
    private func displayed(_ entry: BatchEntry) -> BatchEntry {
        guard case .addressRefused? = entry.downloadError, let error = entry.downloadError else { return entry }
        let first: Bool = lock.withLock {
            privateRefusals += 1
            return privateRefusals == 1
        }
        var copy = entry
        copy.reason = error.description(naming: FlagNames.commandLine, mentioningURL: false, advising: first)
        return copy
    }

    func finish(_ summary: BatchSummary) {
        clearStatus()
        var text = counted(prepared: summary.prepared, rejected: summary.rejected, failed: summary.failed)
        if summary.skipped > 0 { text += ", \(summary.skipped) already prepared (skipped)" }
        if summary.noMedia > 0 {
            text += ", \(summary.noMedia) push\(summary.noMedia == 1 ? "" : "es") without media (nothing to prepare)"
        }
        if summary.interrupted { text += " (interrupted: run again with --resume to finish)" }
        if !summary.skippedFiles.isEmpty {
            let shown = summary.skippedFiles.prefix(5).map {
                "\(Self.shown(URL(fileURLWithPath: $0.path).lastPathComponent)) (\($0.looksLike.phrase))"
            }
            let more = summary.skippedFiles.count > 5 ? ", …" : ""
            let files = "\(summary.skippedFiles.count) file\(summary.skippedFiles.count == 1 ? "" : "s")"
            text += "\nskipped, not media: \(files): \(shown.joined(separator: ", "))\(more)"
        }
        if summary.otherShards > 0 { text += ", \(summary.otherShards) left to the other shards" }
        let c = lock.withLock { counts }
        let done = [
            (c.transcoded, "transcoded"), (c.resized, "resized"), (c.oriented, "turned upright"),
            (c.thumbnails, "with a thumbnail"), (c.warned, "with warnings"),
        ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        if !done.isEmpty { text += "\nof the prepared: " + done.joined(separator: ", ") }
        let top = summary.topReasons()
        if !top.isEmpty {
            text += "\ntop reasons:"
            for (reason, count) in top { text += "\n  \(count) x \(Self.shown(reason))" }
        }
        let refusals = lock.withLock { privateRefusals }
        if refusals > 0 {
            text += "\nhint: \(refusals) item\(refusals == 1 ? " was" : "s were") refused as loopback or private addresses: pass --allow-private-networks to fetch from them"
        }
        text += "\ncontainer: \(summary.folder.path)\nmanifest:  \(summary.manifest.path)"
        if summary.otherShards > 0 || summary.manifest.pathExtension == "jsonl", !summary.merged,
            !summary.interrupted
        {
            text += "\n           (manifest.json is written by the last shard to finish, or 'pushattach merge DIR')"
        }
        Console.error(text)
    }

    /// The summary of a run that stopped on a fatal error (the folder not writable or in use,
    /// the disk full): what finished before it, and the journal that records it. Nothing when
    /// nothing finished: the error that follows says it all, and no file is named that does not
    /// exist.
    func finishFailed(folder: URL, journal: URL) {
        clearStatus()
        let done = lock.withLock { finished }
        let prepared = done[.prepared] ?? 0, rejected = done[.rejected] ?? 0, failed = done[.failed] ?? 0
        guard prepared + rejected + failed > 0 else { return }
        var text = counted(prepared: prepared, rejected: rejected, failed: failed)
        text += "\ncontainer: \(folder.standardizedFileURL.path)"
        if FileManager.default.fileExists(atPath: journal.path) {
            text += "\njournal:   \(journal.standardizedFileURL.path) (run again with --resume to finish)"
        }
        Console.error(text)
    }

    /// "12 items: 9 prepared, 2 rejected, 1 failed", after a blank line when lines came before.
    private func counted(prepared: Int, rejected: Int, failed: Int) -> String {
        let total = prepared + rejected + failed
        return (lock.withLock { saidAnything } ? "\n" : "")
            + "\(total) item\(total == 1 ? "" : "s"): \(prepared) prepared, \(rejected) rejected, \(failed) failed"
    }

    /// One line for an item; `warnings: false` leaves the first warning out (verbose mode lists
    /// them all under the line).
    static func plainLine(_ entry: BatchEntry, warnings: Bool = true) -> String {
        switch entry.status {
        case .prepared:
            var line = "prepared \(shown(entry.file ?? "-")) <- \(shown(entry.input))"
            let done = actions(entry)
            if !done.isEmpty { line += " [\(done.joined(separator: ", "))]" }
            if warnings, let first = entry.warnings.first {
                line += " warning: \(shown(first))"
                if entry.warnings.count > 1 { line += " (+\(entry.warnings.count - 1) more)" }
            }
            return line
        case .rejected, .failed: return "\(entry.status.rawValue) \(shown(place(entry))): \(shown(entry.reason ?? ""))"
        }
    }

    /// What the engine did to a prepared item, from its transform steps, in a few words each:
    /// "transcoded webp -> jpeg", "resized to 2048x1536", "turned upright", "thumbnail". The size
    /// is the written file's, as the manifest records it (after every fitting step, a GIF's
    /// included), whenever it differs from the downloaded image's.
    static func actions(_ entry: BatchEntry) -> [String] {
        let steps = entry.transform ?? []
        var out = steps.filter { $0.hasPrefix("transcoded ") }
        if let size = resizedSize(entry) { out.append("resized to \(size.width)x\(size.height)") }
        if steps.contains(where: { $0.hasPrefix("oriented upright") }) { out.append("turned upright") }
        if entry.thumbnailURL != nil { out.append("thumbnail") }
        return out
    }

    /// The written size when it differs from the downloaded image's (both upright).
    static func resizedSize(_ entry: BatchEntry) -> PixelSize? {
        guard let size = entry.pixelSize, let source = entry.sourcePixelSize, size != source else { return nil }
        return size
    }

    private func count(_ entry: BatchEntry) {
        let steps = entry.transform ?? []
        lock.withLock {
            if steps.contains(where: { $0.hasPrefix("transcoded ") }) { counts.transcoded += 1 }
            if Self.resizedSize(entry) != nil { counts.resized += 1 }
            if steps.contains(where: { $0.hasPrefix("oriented upright") }) { counts.oriented += 1 }
            if entry.thumbnailURL != nil { counts.thumbnails += 1 }
            if !entry.warnings.isEmpty { counts.warned += 1 }
        }
    }

    /// Where an entry came from: its URL; for a problem with an INPUT itself (a bad line, a
    /// payload with no URL), whose input is the INPUT's name, also the line, `list.txt:12`.
    static func place(_ entry: BatchEntry) -> String {
        entry.input.contains("://") || entry.line <= 0 ? entry.input : "\(entry.input):\(entry.line)"
    }

    /// Verbose mode's lines under an item: each step the engine took, each warning, then where
    /// its time went.
    static func detailLines(_ entry: BatchEntry) -> [String] {
        let t = entry.timings
        return (entry.transform ?? []).map { "  step: \(shown($0))" } + entry.warnings.map { "  warning: \(shown($0))" }
            + ["  timings: download \(Self.ms(t.download)) ms, process \(Self.ms(t.process)) ms, write \(Self.ms(t.write)) ms"]
    }

    private static func shown(_ text: String) -> String { DisplayText.escaped(text) }
    /// Whole milliseconds of `duration`, as the manifest keeps them.
    private static func ms(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    private func say(_ line: String) {
        lock.withLock {
            if terminal && statusShown { ConsoleStream.standardError.write(Data("\r\u{1B}[K".utf8)) }
            ConsoleStream.standardError.write(Data((Console.shown(line) + "\n").utf8))
            saidAnything = true
            if terminal { writeStatusLocked() }
        }
    }

    private func drawStatus() { lock.withLock { writeStatusLocked() } }

    private func writeStatusLocked() {
        // The escape sequence is ours (clear the line); the status text goes through `shown`.
        ConsoleStream.standardError.write(Data(("\r\u{1B}[K" + Console.shown(meter.line())).utf8))
        statusShown = true
    }

    private func clearStatus() {
        lock.withLock {
            if terminal && statusShown { ConsoleStream.standardError.write(Data("\r\u{1B}[K".utf8)) }
            statusShown = false
        }
    }
}
