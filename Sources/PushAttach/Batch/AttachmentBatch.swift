import Foundation
import Pipeline

/// What a batch reads: URLs given in code, or a file of them (a URL list, JSON lines, a push
/// payload in the common conventions), as `pushattach prepare INPUT` reads it.
///
///     let inputs: [BatchInput] = [.urls(urls), .file(URL(fileURLWithPath: "payloads.jsonl"))]
public struct BatchInput: Sendable, Hashable {
    enum Source: Sendable, Hashable {
        case urls([URL])
        case file(URL)
    }

    let source: Source

    /// These URLs, one item each, in order.
    public static func urls(_ urls: [URL]) -> BatchInput { BatchInput(source: .urls(urls)) }

    /// The items of a file: a URL list (one URL per line, optionally followed by a `media_type`;
    /// `#` comments), JSON lines (`{"url", "media_type", "id"}`, or a push payload per line), a
    /// push payload JSON document, or a local media file (one item).
    public static func file(_ url: URL) -> BatchInput { BatchInput(source: .file(url)) }
}

/// How a batch ended: the counts, and where the manifest is.
public struct BatchSummary: Sendable, Hashable {
    /// Items written (an attachment iOS takes is in the folder).
    public var prepared: Int
    /// Items refused for what they are (a type iOS refuses, a damaged or too large image).
    public var rejected: Int
    /// Items that could not be obtained or written (network, HTTP, input lines, disk).
    public var failed: Int
    /// Items a resumed batch found prepared already and did not download again.
    public var skipped: Int
    /// True when the batch was cancelled before every item finished: `manifest.json` is not
    /// written; run it again with `options.resume` to finish.
    public var interrupted: Bool
    /// `folder/manifest.json` (written when the batch finished, or when the last shard did).
    public var manifest: URL
}

/// One finished item, as `manifest.json` records it (`docs/MANIFEST.md` says what each field means).
public struct BatchEntry: Sendable, Hashable {
    /// What became of an item.
    public enum Status: String, Sendable, Hashable {
        /// An attachment iOS takes was written.
        case prepared
        /// Refused for what it is (a type iOS refuses, damaged, too large).
        case rejected
        /// Not obtained or not written (input, network, HTTP, disk).
        case failed
    }

    /// The item's position among everything the inputs yielded.
    public var index: Int
    /// The URL as the input gave it.
    public var input: String
    /// The id the input gave the item, if any.
    public var id: String?
    /// What became of it.
    public var status: Status
    /// What was done, in `verify`'s words (`AttachmentReport.Action`); nil when the bytes were never judged.
    public var action: AttachmentReport.Action?
    /// The code iOS would give the file, on a refusal iOS would make too.
    public var errorCode: UNErrorCode?
    /// Why it was rejected or failed; nil when prepared.
    public var reason: String?
    /// The written attachment; nil unless prepared.
    public var fileURL: URL?
    /// The identifier for `UNNotificationAttachment` (the UUID in the file name).
    public var identifier: String?
    /// The type hint to pass (a UTI).
    public var typeHint: String?
    /// The written file's format; for a refused item, the input's as far as it was read.
    public var format: MediaFormat?
    /// The written file's pixel size, upright.
    public var pixelSize: PixelSize?
    /// The thumbnail, when one was asked for and made.
    public var thumbnailURL: URL?
    /// Notes that did not stop it: claims that disagreed with the bytes, codec warnings.
    public var warnings: [String]

    init(_ entry: ManifestEntry, folder: URL) {
        index = entry.index
        input = entry.input
        id = entry.id
        status = Status(rawValue: entry.status.rawValue) ?? .failed
        action = entry.action.flatMap(AttachmentReport.Action.init(rawValue:))
        errorCode = entry.errorCode.flatMap(UNErrorCode.init(rawValue:))
        reason = entry.reason
        fileURL = entry.file.map { folder.appendingPathComponent($0) }
        identifier = entry.identifier
        typeHint = entry.uti
        format = entry.format.flatMap(MediaFormat.init(rawValue:))
        pixelSize = entry.width.flatMap { w in entry.height.map { PixelSize(width: w, height: $0) } }
        thumbnailURL = entry.thumbnail.map { folder.appendingPathComponent($0) }
        warnings = entry.warnings
    }
}

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

        private var shardIndex: Int?
        private var shardCount = 1

        /// Every option off: no resume, no shard, the configuration's thumbnail, no report.
        public init() {}
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

    /// Runs the batch to the end: every item of `inputs`, in order of reading, at most
    /// `configuration.maxInFlight` at once.
    ///
    /// - Throws: `AttachmentError` (`.invalidArgument` for a bad shard; `.writeFailed` when the
    ///   folder cannot be used: not writable, held by another batch, the disk full). A failed
    ///   item is not an error: it is counted, and its entry says why.
    public func run(_ inputs: [BatchInput]) async throws(AttachmentError) -> BatchSummary {
        try await run(inputs) { _ in }
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
                _ = try await run(inputs) { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func run(_ inputs: [BatchInput], each: @escaping @Sendable (BatchEntry) -> Void)
        async throws(AttachmentError) -> BatchSummary
    {
        let lists = try writeURLLists(inputs)
        defer { for list in lists.temporary { try? FileManager.default.removeItem(at: list) } }
        var prepare = configuration.options(container: folder)
        prepare.inputs = lists.paths
        prepare.resume = options.resume
        prepare.report = options.writeReport
        if let size = options.thumbnailSize { prepare.limits.thumbnailSize = size }
        if let shard = options.shard {
            do { prepare.shard = try Shard(index: shard.index, count: shard.count) } catch {
                throw AttachmentError(kind: .invalidArgument, reason: error.description)
            }
        }
        let folder = folder
        let summary: PrepareSummary
        do {
            summary = try await Preparer(options: prepare).run { event in
                if case .finished(let entry) = event { each(BatchEntry(entry, folder: folder)) }
            }
        } catch {
            throw AttachmentError(error.error, url: nil)
        }
        return BatchSummary(
            prepared: summary.prepared, rejected: summary.rejected, failed: summary.failed, skipped: summary.skipped,
            interrupted: summary.interrupted, manifest: summary.manifest)
    }

    /// The inputs as paths the batch runner reads: files as they are, URLs as a URL list in a
    /// temporary file (removed after the run). The same URLs give the same items (index, line),
    /// so a resumed batch recognises them.
    private func writeURLLists(_ inputs: [BatchInput]) throws(AttachmentError) -> (paths: [String], temporary: [URL]) {
        var paths: [String] = []
        var temporary: [URL] = []
        for input in inputs {
            switch input.source {
            case .file(let url): paths.append(url.path)
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
