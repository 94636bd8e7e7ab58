import Fetch
import Foundation
import MediaTypes

/// Runs `pushattach prepare`: inputs → download → sniff, reconcile, assess → engine → hash →
/// atomic write → manifest, with bounded concurrency and memory.
///
///     var options = PrepareOptions(container: URL(fileURLWithPath: "out"), inputs: ["list.txt"])
///     options.fetch.allowPrivateNetworks = true
///     let summary = try await Preparer(options: options).run { event in print(event) }
///     summary.prepared   // 42
///
/// - Back-pressure: an input event is read only when one of the `maxInFlight` slots is free, so
///   at most that many items are in flight whatever the list length. Input is read on a thread
///   of its own (standard input may block).
/// - Memory: one budget for the run (`memoryBudget`). An item holds the in-memory part of its
///   body while downloading (at most `fetch.spoolThreshold`: past it the body streams to the
///   container's `.spool/`, within `spoolBudget` of disk), then its expected working memory
///   while it is processed and written; items wait in line for it, and one needing more than
///   the whole budget runs alone. Audio and video that pass through are renamed from the spool
///   into place, never read into memory; images are decoded from the mapped spool file.
///   A server embedding the library should also cap glibc's malloc arenas and fix its mmap
///   threshold at start-up (`mallopt(M_ARENA_MAX, 2)`, `mallopt(M_MMAP_THRESHOLD, 1 << 20)`,
///   as the command line does), or freed decode buffers stay in per-thread arenas.
/// - Downloads: `HTTPClient` (its own threads), at most `perHost` per host. `file://` items (local
///   paths given as INPUT) are read from disk.
/// - CPU work: sniffing, the engine and SHA-256 run on `cpuThreads` dedicated threads, each with
///   its own engine; file writes and the journal's fsyncs on two I/O threads. Nothing blocks
///   Swift's cooperative pool.
/// - Identical URLs are downloaded once; every entry naming one points to the same file.
/// - Each finished item is appended to `manifest.jsonl` at once (completion order); `manifest.json`
///   is written at the end, one entry per input item in input order, also after an interrupt
///   (cancelling the task running `run`: unfinished items are abandoned, and `--resume` redoes
///   them). On `--resume`, an item prepared before is skipped and adds no line.
/// - Per-item problems are entries. Only container errors that would fail every later item
///   (not writable, disk full, locked) stop the run, as `PrepareFailure`.
package final class Preparer: Sendable {
    package let options: PrepareOptions

    package init(options: PrepareOptions) { self.options = options }

    package func run(events: @escaping @Sendable (PrepareEvent) -> Void = { _ in }) async throws(PrepareFailure)
        -> PrepareSummary
    {
        var summary = PrepareSummary(container: options.container.standardizedFileURL)
        let container: Container
        do { container = try Container.open(at: options.container) } catch {
            throw PrepareFailure(error: error, summary: summary)
        }
        summary.container = container.url
        summary.manifest = container.url.appendingPathComponent(Manifest.fileName)
        // Released when the run returns, not when the last reference to the container goes
        // (worker threads may hold one a moment longer): a second run on the folder right after
        // this one must not find it locked.
        defer { container.lock.release() }
        // Every spool file is gone once its item is; the folder goes with the run.
        defer { container.removeSpoolFolder() }

        var resume: Manifest.ResumeState?
        if options.resume {
            do { resume = try Manifest.load(dir: container.url) } catch {
                throw PrepareFailure(error: error, summary: summary)
            }
            for warning in resume?.warnings ?? [] { events(.note(warning)) }
            let removed = container.removeUnreferencedFiles(keeping: resume?.referencedFiles ?? [])
            if !removed.isEmpty {
                events(.note("removed \(removed.count) file(s) no prepared entry names (left by an interrupted run)"))
            }
        }
        let journal: ManifestJournal
        do { journal = try ManifestJournal(directory: container.url) } catch {
            throw PrepareFailure(error: error, summary: summary)
        }

        let context = ItemContext(options: options, container: container)
        defer { context.shutdown() }
        let inputs = options.inputs
        let reader = WorkerPool<InputReader>(name: "input", threads: 1) { InputReader(inputs: inputs) }
        defer { reader.shutdown() }

        let preparedKeys = Set(
            (resume?.entries ?? []).filter { $0.status == .prepared }.map {
                EntryKey(index: $0.index, input: $0.input, line: $0.line)
            })
        var seen = DedupeTable()
        var fatal: ContainerError?

        func record(_ entry: ManifestEntry, ownsFiles: Bool = false) async -> ContainerError? {
            let outcome: Result<ManifestJournal.Appended, ContainerError> = await context.io.run { _ in
                do throws(ContainerError) { return .success(try journal.append(entry)) } catch {
                    // The entry is not in the journal, so its files must not stay on disk either:
                    // the manifest and the folders agree, and `--resume` redoes the item.
                    for file in [entry.file, entry.thumbnail].compactMap({ $0 })
                    where ownsFiles && entry.status == .prepared {
                        container.removeFile(file)
                    }
                    return .failure(error)
                }
            }
            let appended: ManifestJournal.Appended
            switch outcome {
            case .failure(let error): return error
            case .success(let line): appended = line
            }
            if appended.recreated {
                events(
                    .note(
                        "\(ManifestJournal.fileName) was deleted during the run; recreated it with every entry so far"))
            }
            if ownsFiles { seen.recorded(entry, at: appended) }
            summary.record(entry)
            events(.finished(entry))
            return nil
        }

        await withTaskGroup(of: ItemResult.self) { group in
            var inFlight = 0
            var inputDone = false
            // Each input event's position: the entries' `index`, the order of `manifest.json`.
            var nextIndex = 0
            while true {
                // Fill free slots from the input, one event per slot.
                while !inputDone, fatal == nil, inFlight < options.maxInFlight {
                    if Task.isCancelled {
                        inputDone = true
                        break
                    }
                    guard let event = await reader.run({ $0.next() }) else {
                        inputDone = true
                        break
                    }
                    let index = nextIndex
                    nextIndex += 1
                    switch event {
                    case .problem(let problem):
                        let entry = ManifestEntry(
                            index: index, input: problem.source, line: problem.line, status: .failed,
                            reason: problem.message)
                        fatal = await record(entry)
                    case .item(let item):
                        if let prior = resume?.prepared[item.url] {
                            // Prepared before as this very item: its line is in the journal
                            // already, and stays the only one. Prepared as another item (the
                            // same URL elsewhere): this item's first line, sharing the file.
                            if preparedKeys.contains(EntryKey(index: index, input: item.url, line: item.line)) {
                                summary.skipped += 1
                                events(.skipped(item))
                            } else {
                                fatal = await record(prior.reused(by: item, index: index))
                            }
                            continue
                        }
                        events(.started(item))
                        inFlight += 1
                        switch seen[item.url] {
                        case .pending(let shared):
                            options.dedupeObserver?(item.line, .waitedForInFlight)
                            group.addTask {
                                guard let first = await shared.wait() else { return .abandoned }
                                var entry = first.reused(by: item, index: index)
                                entry.warnings.append(
                                    "same URL as \(shared.firstSource):\(shared.firstLine); downloaded once")
                                return .reused(entry)
                            }
                        case .recorded(let line, let firstLine, let source):
                            let firstSource = seen.source(source)
                            options.dedupeObserver?(item.line, .readFromJournal)
                            group.addTask {
                                let read: Result<ManifestEntry, ContainerError> = await context.io.run { _ in
                                    Result { () throws(ContainerError) in try journal.read(line) }
                                }
                                switch read {
                                case .success(let first):
                                    var entry = first.reused(by: item, index: index)
                                    entry.warnings.append("same URL as \(firstSource):\(firstLine); downloaded once")
                                    return .reused(entry)
                                case .failure(let error):
                                    var entry = ManifestEntry(
                                        index: index, input: item.url, line: item.line, id: item.id,
                                        status: .failed)
                                    entry.reason =
                                        "same URL as \(firstSource):\(firstLine), whose entry cannot be read back: \(error)"
                                    return .reused(entry)
                                }
                            }
                        case nil:
                            let shared = SharedOutcome(firstSource: item.source, firstLine: item.line)
                            seen.pending(item.url, shared)
                            group.addTask {
                                let result = await context.prepare(item, index: index)
                                if case .entry(let entry) = result { shared.fulfil(entry) } else { shared.fulfil(nil) }
                                return result
                            }
                        }
                    }
                }
                guard let result = await group.next() else { break }
                inFlight -= 1
                switch result {
                // Recorded even after a fatal error, so files already written are in the journal;
                // if the journal cannot take them either, `record` removes them again.
                case .entry(let entry):
                    if let failure = await record(entry, ownsFiles: true) { fatal = fatal ?? failure }
                case .reused(let entry):
                    if let failure = await record(entry) { fatal = fatal ?? failure }
                case .abandoned:
                    summary.interrupted = true
                case .fatal(let error):
                    fatal = fatal ?? error
                }
                if fatal != nil { group.cancelAll() }
            }
        }
        if Task.isCancelled { summary.interrupted = true }

        var closing: ContainerError?
        do { try journal.close() } catch { closing = error }
        do { try Manifest.finalize(dir: container.url) } catch {
            closing = closing ?? error
            // Point at what holds the entries: the journal (`--resume` builds manifest.json).
            summary.manifest = container.url.appendingPathComponent(ManifestJournal.fileName)
        }
        if let error = fatal ?? closing { throw PrepareFailure(error: error, summary: summary) }
        return summary
    }
}

/// What identifies an item across runs (`Manifest.Key`'s fields).
struct EntryKey: Hashable {
    var index: Int
    var input: String
    var line: Int
}

enum ItemResult: Sendable {
    case entry(ManifestEntry)
    /// A later item naming a URL already prepared in this run: it shares the first one's files.
    case reused(ManifestEntry)
    /// Interrupted before it finished: no entry, `--resume` redoes it.
    case abandoned
    case fatal(ContainerError)
}

extension ManifestEntry {
    /// This entry's outcome for another item naming the same URL, the `index`th of the input.
    func reused(by item: InputItem, index: Int) -> ManifestEntry {
        var entry = self
        entry.index = index
        entry.input = item.url
        entry.line = item.line
        entry.id = item.id
        entry.timings = Timings()
        return entry
    }
}
