import Foundation
import MediaTypes
import PushAttach
import SystemSupport

/// What `pushattach prepare` does, as a library call: many items into one folder, with a
/// journal (`manifest.jsonl`) written as they finish, `manifest.json` at the end, resume after
/// an interruption, shards that share a folder, and the HTML report.
///
///     let batch = AttachmentBatch(folder: folder)
///     let summary = try await batch.run([.urls(urls)])
///     print(summary.prepared, summary.manifest.path)
///
///     var options = AttachmentBatch.Options()
///     options.resume = true                       // only what is not prepared yet is fetched
///     let again = try await AttachmentBatch(folder: folder, options: options).run([.urls(urls)])
///     again.skipped                               // == summary.prepared
///
/// One batch at a time holds a folder (a lock file); a second one on the same folder throws.
public struct AttachmentBatch: Sendable {
    /// How a batch runs, beyond the preparer's `Configuration`.
    public struct Options: Sendable, Hashable {
        /// Skip the items the folder's manifest has prepared, with their files in place.
        public var resume = false
        /// Prepare only the items whose URL hashes to shard `index` of `count` (0 ≤ index < count),
        /// into a folder the other shards share; the last to finish writes `manifest.json`.
        /// `Options.shard(parsing:)` reads it from text such as "2/8" or "auto".
        public var shard: (index: Int, count: Int)? {
            get { shardIndex.map { ($0, shardCount) } }
            set {
                shardIndex = newValue?.index
                shardCount = newValue?.count ?? 1
            }
        }
        /// Also write a thumbnail whose long side is this many pixels (overrides the configuration's).
        public var thumbnailSize: Int?
        /// Write `report.html` (a contact sheet of the manifest) when the batch ends.
        public var writeReport = false
        /// A folder given as input (`BatchInput.file`) gives the media files in its sub-folders
        /// too, not only its own.
        public var recursive = false

        private var shardIndex: Int?
        private var shardCount = 1

        /// Every option off: no resume, no shard, the configuration's thumbnail, no report.
        public init() {}

        /// A shard from text: "K/N" (0 ≤ K < N), or "auto" (or "auto/N") to read K and N from a
        /// job array's environment: Slurm (`SLURM_ARRAY_TASK_ID` minus `SLURM_ARRAY_TASK_MIN`, and
        /// `SLURM_ARRAY_TASK_COUNT`), a Kubernetes Indexed Job (`JOB_COMPLETION_INDEX`), AWS Batch
        /// (`AWS_BATCH_JOB_ARRAY_INDEX`) or Cloud Run (`CLOUD_RUN_TASK_INDEX`, `CLOUD_RUN_TASK_COUNT`).
        ///
        ///     options.shard = try AttachmentBatch.Options.shard(parsing: "auto/8")
        ///
        /// - Throws: `AttachmentError` `.invalidArgument`, saying what is wrong with the text or
        ///   which variable is missing.
        public static func shard(
            parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment
        ) throws(AttachmentError) -> (index: Int, count: Int) {
            do {
                let shard = try Shard(parsing: text, environment: environment)
                return (shard.index, shard.count)
            } catch {
                throw AttachmentError(kind: .invalidArgument, reason: error.description)
            }
        }
    }

    /// What a batch reports as it goes, in the order it happens.
    public enum Event: Sendable, Hashable {
        /// An item was read from the inputs and queued (its position, and its URL or input name).
        case started(index: Int, input: String)
        /// An item finished; its entry is already in the journal.
        case finished(BatchEntry)
        /// An item a resumed batch found prepared, and did not fetch again.
        case skipped(index: Int, input: String)
        /// An item that had started when the batch was cancelled: it was abandoned, nothing of it
        /// is in the folder, and no entry names it (resuming the batch prepares it). With
        /// `.finished`, every `.started` item gets one of the two.
        case cancelled(index: Int, input: String)
        /// A note on the batch as a whole: journal lines a resume could not read, files of an
        /// interrupted run removed.
        case note(String)
    }

    /// The folder the attachments, the journal and the manifest go to.
    public let folder: URL
    /// Downloads, limits, rules and budgets, as for `AttachmentPreparer`.
    public let configuration: AttachmentPreparer.Configuration
    /// Resume, shard, thumbnail and report.
    public let options: Options

    /// A batch into `folder` (created when missing).
    public init(
        folder: URL, configuration: AttachmentPreparer.Configuration = .default, options: Options = Options()
    ) {
        self.folder = folder
        self.configuration = configuration
        self.options = options
    }

    /// The journal this batch writes as items finish: `folder/manifest.jsonl`, or a shard's
    /// `folder/manifest.K-of-N.jsonl`. One that is not empty holds an earlier batch's items:
    /// resume it (`options.resume`), or choose another folder.
    public var journal: URL {
        let name = options.shard.flatMap { try? Shard(index: $0.index, count: $0.count) }?.journalName
        return folder.appendingPathComponent(name ?? ManifestJournal.fileName)
    }

    /// True while a batch (in this process or another) holds `folder`'s lock: a batch started on
    /// it now would throw, naming the holder's process.
    public static func isInUse(_ folder: URL) -> Bool {
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(ContainerLock.fileName).path)
        else { return false }
        do {
            let lock = try ContainerLock(directory: folder.standardizedFileURL)
            lock.release()
            return false
        } catch {
            if case .locked = error { return true }
            return false
        }
    }

    /// Runs the batch to the end: every item of `inputs`, in order of reading, at most
    /// `configuration.maxInFlight` at once.
    ///
    /// - Throws: `AttachmentError` (`.invalidArgument` for a bad shard or request headers that
    ///   cannot be sent, `FetchPolicy.headerProblem`; `.writeFailed` when the
    ///   folder cannot be used: not writable, held by another batch, the disk full). A failed
    ///   item is not an error: it is counted, and its entry says why.
    public func run(_ inputs: [BatchInput]) async throws(AttachmentError) -> BatchSummary {
        try await run(inputs) { _ in }
    }

    /// Runs the batch to the end, telling `observe` what happens as it happens: each item
    /// started, finished or skipped, and notes. `observe` is called from the batch's tasks, one
    /// event at a time per item but from several items at once: make it thread-safe and quick.
    /// Cancelling the calling task interrupts the batch: unfinished items are abandoned, the
    /// journal is kept, and the summary says `interrupted` (resume finishes it). A folder that
    /// holds an earlier batch's journal is refused (`.invalidArgument`) unless `options.resume`.
    ///
    ///     let summary = try await batch.run([.file(list)]) { event in
    ///         if case .finished(let entry) = event, entry.status != .prepared { log(entry.reason ?? "") }
    ///     }
    public func run(_ inputs: [BatchInput], observe: @escaping @Sendable (Event) -> Void)
        async throws(AttachmentError) -> BatchSummary
    {
        try refuseAnEarlierRun()
        let lists = try writeURLLists(inputs)
        defer { for list in lists.temporary { try? FileManager.default.removeItem(at: list) } }
        let prepare = try prepareOptions(inputs: lists.paths)
        let folder = prepare.container.standardizedFileURL
        let summary: PrepareSummary
        do {
            summary = try await BatchRunner(options: prepare).run { event in
                switch event {
                case .started(let item, let index): observe(.started(index: index, input: DisplayText.withoutCredentials(item.url)))
                case .skipped(let item, let index): observe(.skipped(index: index, input: DisplayText.withoutCredentials(item.url)))
                case .finished(let entry, let end): observe(.finished(BatchEntry(entry, end: end, folder: folder)))
                case .cancelled(let item, let index): observe(.cancelled(index: index, input: DisplayText.withoutCredentials(item.url)))
                case .note(let text): observe(.note(text))
                }
            }
        } catch {
            throw AttachmentError(error.error, url: nil, names: configuration.policy.settingNames)
        }
        return BatchSummary(summary, names: configuration.policy.settingNames)
    }

    /// The entries of a batch as they finish (in the order they finish, each once); the stream
    /// ends when the batch does and throws its `AttachmentError` if it fails. Cancelling the
    /// iterating task interrupts the batch (resume finishes it).
    ///
    ///     for try await entry in AttachmentBatch(folder: folder).events([.urls(urls)]) {
    ///         print(entry.status, entry.fileURL?.lastPathComponent ?? entry.reason ?? "")
    ///     }
    public func events(_ inputs: [BatchInput]) -> AsyncThrowingStream<BatchEntry, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: BatchEntry.self)
        let task = Task {
            do throws(AttachmentError) {
                _ = try await run(inputs) { event in
                    if case .finished(let entry) = event { continuation.yield(entry) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Throws when the folder holds an earlier batch's journal and `options.resume` is off: a run
    /// would fetch everything again and leave files its `manifest.json` does not list. A batch
    /// holding the folder now is left to the lock, which names its process.
    private func refuseAnEarlierRun() throws(AttachmentError) {
        guard !options.resume, !Self.isInUse(folder),
            let size = try? FileManager.default.attributesOfItem(atPath: journal.path)[.size] as? Int, size > 0
        else { return }
        let names = configuration.policy.settingNames
        throw AttachmentError(
            kind: .invalidArgument,
            reason: "\(folder.path) already holds a batch's journal (\(journal.lastPathComponent)); resume it with "
                + "\(names[.resume]), or choose an empty \(names[.container])")
    }

    /// The batch runner's options: the configuration's, then this batch's.
    private func prepareOptions(inputs: [String]) throws(AttachmentError) -> PrepareOptions {
        if let problem = configuration.fetch.headerProblem() {
            throw AttachmentError(kind: .invalidArgument, reason: problem)
        }
        var prepare = PrepareOptions(item: configuration.options(container: folder), inputs: inputs)
        prepare.resume = options.resume
        prepare.report = options.writeReport
        prepare.recursiveFolders = options.recursive
        if let size = options.thumbnailSize { prepare.limits.thumbnailSize = size }
        if let shard = options.shard {
            do { prepare.shard = try Shard(index: shard.index, count: shard.count) } catch {
                throw AttachmentError(kind: .invalidArgument, reason: error.description)
            }
        }
        return prepare
    }

    /// The inputs as paths the batch runner reads: files as they are, standard input as `-`,
    /// URLs as a URL list in a temporary file (removed after the run). The same URLs give the
    /// same items (index, line), so a resumed batch recognises them.
    private func writeURLLists(_ inputs: [BatchInput]) throws(AttachmentError) -> (paths: [String], temporary: [URL]) {
        var paths: [String] = []
        var temporary: [URL] = []
        for input in inputs {
            switch input.source {
            case .file(let path): paths.append(path)
            case .standardInput: paths.append("-")
            case .urls(let urls):
                let list = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "pushattach-batch-\(UUID().uuidString).txt")
                let text = urls.map { $0.absoluteString + "\n" }.joined()
                do { try Data(text.utf8).write(to: list) } catch {
                    throw AttachmentError(
                        kind: .writeFailed, reason: "cannot write the URL list to \(list.path): \(error.localizedDescription)")
                }
                paths.append(list.path)
                temporary.append(list)
            }
        }
        return (paths, temporary)
    }
}

extension BatchSummary {
    /// The batch runner's summary in the library's types.
    init(_ summary: PrepareSummary, names: SettingNames) {
        self.init(folder: summary.container)
        prepared = summary.prepared
        rejected = summary.rejected
        failed = summary.failed
        skipped = summary.skipped
        noMedia = summary.noMedia
        skippedFiles = summary.skippedFiles
        otherShards = summary.otherShards
        interrupted = summary.interrupted
        merged = summary.merged
        manifest = summary.manifest
        reasons = summary.reasons
        switch summary.report {
        case .success(let written)?: report = written.url
        case .failure(let error)?: reportError = error.description(naming: names)
        case nil: break
        }
    }
}
