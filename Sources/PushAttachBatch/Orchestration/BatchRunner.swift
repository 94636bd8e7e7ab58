import Fetch
import Foundation
import MediaTypes
import PushAttach
import SystemSupport

/// Runs `pushattach prepare`: inputs → download → sniff, reconcile, assess → engine → hash →
/// atomic write → manifest, with bounded concurrency and memory.
///
///     var options = PrepareOptions(container: URL(fileURLWithPath: "out"), inputs: ["list.txt"])
///     options.fetch.allowPrivateNetworks = true
///     let summary = try await BatchRunner(options: options).run { event in print(event) }
///     summary.prepared   // 42
///
/// - Back-pressure: an input event is read only when one of the `maxInFlight` slots is free, so
///   at most that many items are in flight whatever the list length. Input is read on a thread
///   of its own (standard input may block).
/// - Memory: one budget for the run (`admissionBudget`). An item holds the in-memory part of its
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
/// - Shards (`options.shard`): only the items whose URL hashes to the shard are taken (input
///   problems go to shard 0); the journal is `manifest.K-of-N.jsonl`, and a shard that ends
///   without an interrupt marks it done and, when it is the last, writes `manifest.json`
///   (`Manifest.merge`). `--resume` keeps a `ResumeIndex`, fixed bytes per prepared entry.
/// - The container is its descriptor: after `Container.open` nothing of it is reached by path
///   (the journal, `manifest.json`, a shard's merge, `report.html`), so a container renamed or
///   replaced by a link mid-run still gets every file, and nothing lands where the path now
///   points. The summary names the container by the path it had at `open`.
/// - Per-item problems are entries. Only container errors that would fail every later item
///   (not writable, disk full, locked) stop the run, as `PrepareFailure`.
package final class BatchRunner: Sendable {
    package let options: PrepareOptions

    package init(options: PrepareOptions) { self.options = options }

    package func run(events: @escaping @Sendable (PrepareEvent) -> Void = { _ in }) async throws(PrepareFailure)
        -> PrepareSummary
    {
        var summary = PrepareSummary(container: options.container.standardizedFileURL)
        let container: Container
        do { container = try Container.open(at: options.container, slice: options.shard?.tag) } catch {
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

        let opened: (resume: ResumeIndex?, journal: ManifestJournal)
        do { opened = try openJournals(in: container, events: events) } catch {
            throw PrepareFailure(error: error, summary: summary)
        }
        let pipeline = ItemPipeline(options: options.item, container: container)
        defer { pipeline.shutdown() }
        let inputs = options.inputs
        var readerOptions = InputReader.Options()
        readerOptions.recursiveFolders = options.recursiveFolders
        let reader = WorkerPool<InputReader>(name: "input", threads: 1) { [readerOptions] in
            InputReader(inputs: inputs, options: readerOptions)
        }
        defer { reader.shutdown() }

        let run = PrepareRun(
            options: options, events: events, container: container, journal: opened.journal, pipeline: pipeline,
            resume: opened.resume, summary: summary)
        await run.prepareAll(from: reader)
        return try run.finish()
    }

    /// Checks the container's journals fit this run, reads what a resumed run prepared (and
    /// removes files an interrupted one left), and opens this run's journal.
    private func openJournals(in container: Container, events: @Sendable (PrepareEvent) -> Void)
        throws(ContainerError) -> (resume: ResumeIndex?, journal: ManifestJournal)
    {
        let shard = options.shard
        let journalName = shard?.journalName ?? ManifestJournal.fileName
        var resume: ResumeIndex?
        try Self.checkJournals(in: container, shard: shard)
        if let shard {
            // This shard is running again: until it finishes, it is not complete.
            try? container.root.remove(shard.doneName)
        }
        if options.resume {
            // A shard's earlier lines, and what an unsharded run prepared before the shards
            // started, are both skipped.
            let names = shard == nil ? [journalName] : [ManifestJournal.fileName, journalName]
            resume = try ResumeIndex(in: container.root, journals: names, keepFiles: shard == nil)
        }
        if let resume {
            for warning in resume.warnings { events(.note(warning)) }
            // Other shards write files into the same folders right now, named in their journals
            // only: a shard removes nothing it cannot tell is its own.
            if shard == nil {
                let removed = container.removeUnreferencedFiles { resume.isReferenced($0) }
                if !removed.isEmpty {
                    events(.note("removed \(removed.count) file(s) no prepared entry names (left by an interrupted run)"))
                }
            }
        }
        return (resume, try ManifestJournal(in: container.root, name: journalName))
    }
}

/// One run of `BatchRunner.run`, from its open journal to its manifest: reads the input, keeps at
/// most `maxInFlight` items in flight, records each entry as it finishes, then closes the
/// journal and writes `manifest.json` (or, for a shard, its marker and maybe the merge).
/// Used by the run's own task only.
private final class PrepareRun {
    let options: PrepareOptions
    let events: @Sendable (PrepareEvent) -> Void
    let container: Container
    let journal: ManifestJournal
    let pipeline: ItemPipeline
    var resume: ResumeIndex?
    var summary: PrepareSummary
    var seen = DedupeTable()
    /// The first error that stops the run (the container not writable, the disk full).
    var fatal: ContainerError?

    init(
        options: PrepareOptions, events: @escaping @Sendable (PrepareEvent) -> Void, container: Container,
        journal: ManifestJournal, pipeline: ItemPipeline, resume: ResumeIndex?, summary: PrepareSummary
    ) {
        self.options = options
        self.events = events
        self.container = container
        self.journal = journal
        self.pipeline = pipeline
        self.resume = resume
        self.summary = summary
    }

    /// Reads input events and keeps free slots filled, one event per slot, collecting results
    /// as they come; stops reading on cancellation or a fatal error.
    func prepareAll(from reader: WorkerPool<InputReader>) async {
        await withTaskGroup(of: ItemResult.self) { group in
            var inFlight = 0
            var inputDone = false
            // Each input event's position: the entries' `index`, the order of `manifest.json`.
            var nextIndex = 0
            while true {
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
                    if await admit(event, index: index, into: &group) { inFlight += 1 }
                }
                guard let result = await group.next() else { break }
                inFlight -= 1
                await collect(result)
                if fatal != nil { group.cancelAll() }
            }
        }
        if Task.isCancelled { summary.interrupted = true }
        // The dedupe table is the run's only per-item state: give it back before the merge
        // that writes manifest.json, so the two never add up.
        seen = DedupeTable()
        resume = nil
    }

    /// One input event: a problem is recorded (by shard 0), an item another shard owns or a
    /// resumed run prepared is passed over, and any other item goes into `group`. True when a
    /// task was added.
    private func admit(_ event: InputEvent, index: Int, into group: inout TaskGroup<ItemResult>) async -> Bool {
        let shard = options.shard
        switch event {
        case .noMedia:
            // A text-only push: counted (by shard 0), no entry, no effect on the status.
            if options.shard.map({ $0.index == 0 }) ?? true { summary.noMedia += 1 }
            return false
        case .skipped(let file):
            // A file that is no media: reported (by shard 0), no entry, no effect on the status.
            if options.shard.map({ $0.index == 0 }) ?? true { summary.skippedFiles.append(file) }
            return false
        case .problem(let problem):
            // Input problems have no URL to hash: shard 0 records them.
            if let shard, shard.index != 0 {
                summary.otherShards += 1
                return false
            }
            let entry = ManifestEntry(
                index: index, input: problem.source, line: problem.line, status: .failed, failure: problem.kind.rawValue,
                reason: problem.message)
            fatal = await record(entry)
            return false
        case .item(let item):
            if let shard, !shard.owns(key: item.url) {
                summary.otherShards += 1
                return false
            }
            if let resume, resume.isPrepared(index: index, input: item.url, line: item.line) {
                // Prepared before as this very item: its line is in the journal already, and
                // stays the only one.
                summary.skipped += 1
                events(.skipped(item, index: index))
                return false
            }
            if let prior = try? resume?.prepared(url: item.url) {
                // Prepared as another item (the same URL elsewhere): this item's first line,
                // sharing the file.
                fatal = await record(prior.reused(by: item, index: index))
                return false
            }
            events(.started(item, index: index))
            addTask(for: item, index: index, to: &group)
            return true
        }
    }

    /// The item's task: a URL seen before in this run waits for (or reads back) the first
    /// item's outcome and shares its files; a new one is downloaded and prepared.
    private func addTask(for item: InputItem, index: Int, to group: inout TaskGroup<ItemResult>) {
        let pipeline = pipeline
        let journal = journal
        switch seen[item.url] {
        case .pending(let shared):
            options.dedupeObserver?(item.line, .waitedForInFlight)
            group.addTask {
                guard let first = await shared.wait() else { return .abandoned(item, index: index) }
                var entry = first.reused(by: item, index: index)
                entry.warnings.append("same URL as \(shared.firstSource):\(shared.firstLine); downloaded once")
                return .reused(entry)
            }
        case .recorded(let line, let firstLine, let source):
            let firstSource = seen.source(source)
            options.dedupeObserver?(item.line, .readFromJournal)
            group.addTask {
                let read: Result<ManifestEntry, ContainerError> = await pipeline.io.run { _ in
                    Result { () throws(ContainerError) in try journal.read(line) }
                }
                switch read {
                case .success(let first):
                    var entry = first.reused(by: item, index: index)
                    entry.warnings.append("same URL as \(firstSource):\(firstLine); downloaded once")
                    return .reused(entry)
                case .failure(let error):
                    var entry = ManifestEntry(
                        index: index, input: item.url, line: item.line, id: item.id, status: .failed)
                    entry.reason = "same URL as \(firstSource):\(firstLine), whose entry cannot be read back: \(error)"
                    return .reused(entry)
                }
            }
        case nil:
            let shared = SharedOutcome(firstSource: item.source, firstLine: item.line)
            seen.pending(item.url, shared)
            group.addTask {
                let result = await pipeline.prepare(item, index: index)
                if case .entry(let entry, _) = result { shared.fulfil(entry) } else { shared.fulfil(nil) }
                return result
            }
        }
    }

    /// A finished task's result. Entries are recorded even after a fatal error, so files
    /// already written are in the journal; if the journal cannot take them either, `record`
    /// removes them again.
    private func collect(_ result: ItemResult) async {
        switch result {
        case .entry(let entry, let end):
            if let failure = await record(entry, end: end, ownsFiles: true) { fatal = fatal ?? failure }
        case .reused(let entry):
            if let failure = await record(entry) { fatal = fatal ?? failure }
        case .abandoned(let item, let index):
            summary.interrupted = true
            events(.cancelled(item, index: index))
        case .fatal(let error):
            fatal = fatal ?? error
        }
    }

    /// Appends `entry` to the journal and reports it; the error when the journal cannot take it.
    private func record(_ entry: ManifestEntry, end: ItemEnd? = nil, ownsFiles: Bool = false) async -> ContainerError? {
        let journal = journal
        let container = container
        let outcome: Result<ManifestJournal.Appended, ContainerError> = await pipeline.io.run { _ in
            do throws(ContainerError) { return .success(try journal.append(entry)) } catch {
                // The entry is not in the journal, so its files must not stay on disk either:
                // the manifest and the folders agree, and `--resume` redoes the item.
                for file in [entry.file, entry.thumbnail].compactMap({ $0 }) where ownsFiles && entry.status == .prepared {
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
            events(.note("\(ManifestJournal.fileName) was deleted during the run; recreated it with every entry so far"))
        }
        if ownsFiles { seen.recorded(entry, at: appended) }
        summary.record(entry)
        events(.finished(entry, end: end))
        return nil
    }

    /// Closes the journal and writes `manifest.json` (a shard: its marker, and the merge when
    /// it is the last), then the report when asked.
    func finish() throws(PrepareFailure) -> PrepareSummary {
        var closing: ContainerError?
        do { try journal.close() } catch { closing = error }
        if let shard = options.shard {
            let complete = fatal == nil && closing == nil && !summary.interrupted
            summary.manifest = container.url.appendingPathComponent(shard.journalName)
            if complete {
                do { try BatchRunner.finishShard(shard, in: container, summary: &summary) } catch { closing = error }
            }
        } else {
            do { try Manifest.finalize(in: container.root) } catch {
                closing = closing ?? error
                // Point at what holds the entries: the journal (`--resume` builds manifest.json).
                summary.manifest = container.url.appendingPathComponent(ManifestJournal.fileName)
            }
        }
        if !container.isStillAtItsPath {
            events(
                .note(
                    "\(container.url.path) was moved or replaced during the run: this run wrote its files and manifest into the folder it opened at the start, wherever that is now, and nothing into what \(container.url.path) names now"
                ))
        }
        if let error = fatal ?? closing { throw PrepareFailure(error: error, summary: summary) }
        if options.report {
            let title = options.container.standardizedFileURL.lastPathComponent
            summary.report = Result { () throws(ReportError) in
                try ReportWriter.write(in: container.root, title: title)
            }
        }
        return summary
    }
}

extension BatchRunner {
    /// Refuses a container whose journals do not fit this run: shard journals of another
    /// shard count, or of any count for an unsharded run (and the reverse, a shard in a
    /// container an unsharded run is using is excluded by the lock).
    private static func checkJournals(in container: Container, shard: Shard?) throws(ContainerError) {
        let set = try JournalSet(in: container.root)
        guard let found = set.count else { return }
        if let shard {
            guard found != shard.count else { return }
            throw .mismatched(
                path: container.url.path,
                reason:
                    "it holds the journals of a run in \(found) shards (manifest.*-of-\(found).jsonl), and this is shard \(shard): run the shards with the same count, or use another container"
            )
        }
        throw .shardedContainer(path: container.url.path, shards: found)
    }

    /// A shard that finished: marks its journal complete (`Shard.doneName`, written atomically
    /// after the journal was synced and closed), gives up its locks, and, if it can take the
    /// container lock (no other shard still running) and every shard is complete, writes
    /// `manifest.json` and removes temporaries crashed shards left.
    ///
    /// Whichever shard releases its shared lock last finds the container lock free, and every
    /// other shard's marker written before it released: so the last one merges (or a racing
    /// shard that took the lock in between does).
    fileprivate static func finishShard(_ shard: Shard, in container: Container, summary: inout PrepareSummary)
        throws(ContainerError)
    {
        let marker = try AtomicFile(in: container.root, name: shard.doneName)
        try marker.append(Data("complete \(shard)\n".utf8))
        try marker.commit()
        container.lock.release()
        let exclusive: ContainerLock
        do { exclusive = try ContainerLock(in: container.root) } catch {
            if case .locked = error { return }  // another shard is still running: it merges
            throw error
        }
        defer { exclusive.release() }
        let set = try JournalSet(in: container.root)
        guard set.incompleteMessage == nil else { return }
        container.removeStaleTemporaries()
        try Manifest.merge(in: container.root)
        summary.manifest = container.url.appendingPathComponent(Manifest.fileName)
        summary.merged = true
    }
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
