import Foundation
import MediaTypes
import Pipeline

/// What `prepare` shows while it runs. Normally: on a terminal, one status line on stderr
/// redrawn in place and a line per item that was not prepared; otherwise one plain line per item.
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
    /// Whether any line went to stderr before the summary (which then follows a blank line).
    private var saidAnything = false

    init(json: Bool, terminal: Bool, verbosity: Verbosity = .normal) {
        self.json = json
        // Quiet draws no status line: the terminal gets the summary alone.
        self.terminal = terminal && verbosity != .quiet
        self.verbosity = verbosity
    }

    func handle(_ event: PrepareEvent) {
        switch event {
        case .started: break
        case .skipped: meter.skippedOne()
        case .note(let text):
            if verbosity != .quiet { say("note: \(Self.shown(text))") }
        case .finished(let entry):
            meter.finished(entry)
            // The manifest's own writer: its keys in the declared order (docs/MANIFEST.md).
            if json { lock.withLock { Console.json(entry.jsonLine()) } }
            switch verbosity {
            case .quiet: break
            case .verbose: say(([Self.plainLine(entry)] + Self.detailLines(entry)).joined(separator: "\n"))
            case .normal:
                if !terminal {
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

    func finish(_ summary: PrepareSummary) {
        clearStatus()
        var text =
            (lock.withLock { saidAnything } ? "\n" : "")
            + "\(summary.total) item\(summary.total == 1 ? "" : "s"): \(summary.prepared) prepared, "
            + "\(summary.rejected) rejected, \(summary.failed) failed"
        if summary.skipped > 0 { text += ", \(summary.skipped) already prepared (skipped)" }
        if summary.interrupted { text += " (interrupted: run again with --resume to finish)" }
        let top = summary.topReasons()
        if !top.isEmpty {
            text += "\ntop reasons:"
            for (reason, count) in top { text += "\n  \(count) x \(Self.shown(reason))" }
        }
        text += "\ncontainer: \(summary.container.path)\nmanifest:  \(summary.manifest.path)"
        Console.error(text)
    }

    static func plainLine(_ entry: ManifestEntry) -> String {
        switch entry.status {
        case .prepared: "prepared \(shown(entry.file ?? "-")) <- \(shown(entry.input))"
        case .rejected, .failed: "\(entry.status.rawValue) \(shown(place(entry))): \(shown(entry.reason ?? ""))"
        }
    }

    /// Where an entry came from: its URL; for a problem with an INPUT itself (a bad line, a
    /// payload with no URL), whose input is the INPUT's name, also the line, `list.txt:12`.
    static func place(_ entry: ManifestEntry) -> String {
        entry.input.contains("://") || entry.line <= 0 ? entry.input : "\(entry.input):\(entry.line)"
    }

    /// Verbose mode's lines under an item: each warning, then where its time went.
    static func detailLines(_ entry: ManifestEntry) -> [String] {
        let t = entry.timings
        return entry.warnings.map { "  warning: \(shown($0))" }
            + ["  timings: download \(t.downloadMs) ms, process \(t.processMs) ms, write \(t.writeMs) ms"]
    }

    private static func shown(_ text: String) -> String { DisplayText.escaped(text) }

    private func say(_ line: String) {
        lock.withLock {
            if terminal && statusShown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            FileHandle.standardError.write(Data((Console.shown(line) + "\n").utf8))
            saidAnything = true
            if terminal { writeStatusLocked() }
        }
    }

    private func drawStatus() { lock.withLock { writeStatusLocked() } }

    private func writeStatusLocked() {
        // The escape sequence is ours (clear the line); the status text goes through `shown`.
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + Console.shown(meter.line())).utf8))
        statusShown = true
    }

    private func clearStatus() {
        lock.withLock {
            if terminal && statusShown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            statusShown = false
        }
    }
}
