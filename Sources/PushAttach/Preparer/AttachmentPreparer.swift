import Fetch
import Foundation
import MediaTypes
import SystemSupport

/// Downloads media URLs and turns them into files iOS accepts as notification attachments.
///
///     var configuration = AttachmentPreparer.Configuration.default
///     configuration.fetch.allowPrivateNetworks = false
///     let preparer = AttachmentPreparer(configuration: configuration)
///     let folder = URL(fileURLWithPath: "/var/lib/push/attachments")
///     let attachment = try await preparer.prepare(URL(string: "https://cdn.example.com/cat.webp")!, into: folder)
///     print(attachment.fileURL, attachment.typeHint)   // …/Images/0AF3…-cat.jpg public.jpeg
///
/// Each item takes the whole per-item pipeline the command line's `prepare` takes: a download
/// under every cap and the address guard (no private or loopback addresses unless
/// `FetchPolicy.allowPrivateNetworks`), the type hint checked against the bytes, Apple's rules,
/// the image engine (fit, transcode, passthrough), the hash, a final check of the output, and
/// an atomic write into the folder's `Images/`, `Audio/`, `Video/` or `Thumbnails/`, named
/// `<UUID>-<name>.<ext>`.
///
/// - Concurrency: one preparer (or `shared`) serves any number of concurrent calls. Calls into
///   one folder share its pipeline (download client, CPU threads); the folder's lock is held
///   once per process while any call of any preparer writes into it, and released when the
///   last one is done, so another process can then take the folder.
/// - CPU work (decode, resize, encode, hash) runs on the pipeline's own threads, never on
///   Swift's cooperative pool.
/// - Memory: every call of one preparer is admitted by one budget
///   (`Configuration.admissionBudget`); large downloads stream to disk in the folder's `.spool/`.
/// - Cancellation: cancelling the calling task stops the download (or the wait for memory)
///   and throws `AttachmentError.Kind.cancelled`; no partial file is ever left.
/// - No manifest: a library call returns its result and writes no `manifest.json` or journal
///   (the command line's batch runs keep those); the file name's UUID is the record.
public final class AttachmentPreparer: Sendable {
    /// A preparer with the default configuration, for callers that need no other.
    public static let shared = AttachmentPreparer()

    /// What this preparer decides by (fixed for its life).
    public let configuration: Configuration
    let runners: FolderRunners

    /// A preparer deciding by `configuration`.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
        let memory = MemoryBudget(capacity: configuration.admissionBudget)
        runners = FolderRunners { container in
            ItemPipeline(options: configuration.options(container: container.url), container: container, memory: memory)
        }
    }

    /// Prepares the media at `url` into `folder` (created when missing).
    ///
    ///     let attachment = try await AttachmentPreparer.shared.prepare(
    ///         URL(string: "https://cdn.example.com/cat.webp")!, typeHint: "image",
    ///         into: URL(fileURLWithPath: "/tmp/attachments"))
    ///
    /// - Parameters:
    ///   - url: the media, `http` or `https`.
    ///   - typeHint: what the sender says it is: coarse ("image"), MIME, UTI or an extension; a
    ///     hint the bytes contradict is a warning (an error when `strict`).
    ///   - folder: the folder the attachment is written into.
    /// - Returns: the written file and what it is.
    /// - Throws: `AttachmentError`, whose `kind` names the stage that failed.
    public func prepare(_ url: URL, typeHint: String? = nil, into folder: URL) async throws(AttachmentError)
        -> PreparedAttachment
    {
        try await prepare(AttachmentRequest(url: url, typeHint: typeHint), into: folder)
    }

    /// Prepares the media at the URL string `url` into `folder`.
    ///
    ///     let attachment = try await AttachmentPreparer.shared.prepare(
    ///         "https://cdn.example.com/cat.webp", into: URL(fileURLWithPath: "/tmp/attachments"))
    ///
    /// - Throws: `AttachmentError` of kind `.invalidURL` when `url` is not an absolute URL,
    ///   else as `prepare(_:typeHint:into:)` with a `URL`.
    public func prepare(_ url: String, typeHint: String? = nil, into folder: URL) async throws(AttachmentError)
        -> PreparedAttachment
    {
        guard let parsed = URL(string: url), parsed.scheme != nil else {
            let shown = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            throw told(
                AttachmentError(kind: .invalidURL, reason: "not an absolute URL: '\(url)' (expected http:// or https://)"),
                url: URL(string: "invalid:" + shown) ?? URL(string: "invalid:")!, requestID: nil)
        }
        return try await prepare(parsed, typeHint: typeHint, into: folder)
    }

    /// Prepares one request (a URL, its type hint, an id of yours) into `folder`.
    ///
    ///     let request = AttachmentRequest(url: URL(string: "https://cdn.example.com/a.mp4")!, typeHint: "video")
    ///     let attachment = try await AttachmentPreparer.shared.prepare(request, into: URL(fileURLWithPath: "/tmp/a"))
    ///
    /// - Throws: `AttachmentError`, as `prepare(_:typeHint:into:)`.
    public func prepare(_ request: AttachmentRequest, into folder: URL) async throws(AttachmentError)
        -> PreparedAttachment
    {
        try await prepare(request, at: .path(folder))
    }

    /// `prepare(_:into:)` into a folder already open (reached without following links: a
    /// cache's work folder).
    package func prepare(_ request: AttachmentRequest, into folder: DirectoryHandle) async throws(AttachmentError)
        -> PreparedAttachment
    {
        try await prepare(request, at: .opened(folder))
    }

    /// `prepare(_:into:)` into a path or a folder already open: the request's id on the answer.
    private func prepare(_ request: AttachmentRequest, at folder: FolderLocation) async throws(AttachmentError)
        -> PreparedAttachment
    {
        do {
            var attachment = try await prepareOne(request, into: folder)
            attachment.requestID = request.id
            return attachment
        } catch {
            var error = error
            error.requestID = request.id
            throw error
        }
    }

    /// `prepare(_:into:)` without the request's id.
    private func prepareOne(_ request: AttachmentRequest, into folder: FolderLocation) async throws(AttachmentError)
        -> PreparedAttachment
    {
        let url = request.url
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            let scheme = url.scheme ?? ""
            throw told(
                AttachmentError(
                    .unsupportedScheme(url: url.absoluteString, scheme: scheme), url: url,
                    names: configuration.policy.settingNames),
                url: url, requestID: request.id)
        }
        if let problem = configuration.fetch.proxyProblem ?? configuration.fetch.headerProblem(adding: request.headers) {
            throw told(AttachmentError(kind: .invalidArgument, url: url, reason: problem), url: url, requestID: request.id)
        }
        var item = InputItem(url: url.absoluteString, mediaType: request.typeHint, id: request.id, source: "", line: 0)
        item.headers = request.headers
        return try await run(item, sourceURL: url, into: folder)
    }

    /// One item through the folder's pipeline: the attachment, or the error its entry says.
    func run(_ item: InputItem, sourceURL url: URL, into folder: URL) async throws(AttachmentError)
        -> PreparedAttachment
    {
        try await run(item, sourceURL: url, into: .path(folder))
    }

    /// `run(_:sourceURL:into:)` into a path or a folder already open.
    func run(_ item: InputItem, sourceURL url: URL, into folder: FolderLocation) async throws(AttachmentError)
        -> PreparedAttachment
    {
        if Task.isCancelled { throw told(.cancelled(url), url: url, requestID: item.id) }
        let acquired: (pipeline: ItemPipeline, container: Container, key: String)?
        do { acquired = try runners.acquire(folder) } catch {
            throw told(AttachmentError(error, url: url, names: configuration.policy.settingNames), url: url, requestID: item.id)
        }
        guard let held = acquired else {
            throw told(
                AttachmentError(
                    kind: .cancelled, url: url,
                    reason: "the preparer was shut down (AttachmentPreparer.shutdown()); nothing was fetched"),
                url: url, requestID: item.id)
        }
        defer { runners.release(held.key) }

        let deadline = ContinuousClock.now + configuration.callDeadline
        var item = item
        item.deadline = deadline
        var outcome = await Self.outcome(of: item, in: held.pipeline, by: deadline)
        if case .cancelled = outcome, !Task.isCancelled, ContinuousClock.now >= deadline {
            // Stopped by the deadline, not by the caller: a timeout.
            let error = FetchError.timedOut(url: item.url, what: "the call's deadline of \(configuration.callDeadline) passed")
            var entry = ManifestEntry(index: 0, input: item.url, line: item.line, id: item.id, status: .failed)
            entry.fail(.download(error), reason: error.description(naming: configuration.policy.settingNames))
            outcome = .finished(entry, end: .failed(.download(error)))
        }
        configuration.onEvent?(AttachmentEvent(outcome, url: url, requestID: item.id, names: configuration.policy.settingNames))
        switch outcome {
        case .cancelled: throw .cancelled(url)
        case .fatal(let error): throw AttachmentError(error, url: url, names: configuration.policy.settingNames)
        case .finished(let entry, let end):
            if case .prepared = end,
                let attachment = PreparedAttachment(entry: entry, folder: held.container.url, sourceURL: url)
            {
                return attachment
            }
            throw AttachmentError(entry: entry, end: end, url: url, names: configuration.policy.settingNames)
        }
    }

    /// Tells `Configuration.onEvent` of a call that ends with `error` before its item ran, and
    /// gives the error back: every call is told once.
    func told(_ error: AttachmentError, url: URL, requestID: String?) -> AttachmentError {
        configuration.onEvent?(AttachmentEvent(refused: error, url: url, requestID: requestID))
        return error
    }

    /// `item` through `pipeline`, cancelled when it runs past `deadline`. The download keeps to
    /// the deadline itself (`InputItem.deadline`) and ends with its own timeout and the origin's
    /// advice; this cancels whatever else is still running shortly after it (a wait for memory,
    /// the engine), which then ends as `.cancelled`.
    private static func outcome(
        of item: InputItem, in pipeline: ItemPipeline, by deadline: ContinuousClock.Instant
    ) async -> ItemOutcome {
        await withTaskGroup(of: ItemOutcome?.self) { group in
            group.addTask { await pipeline.prepareOne(item) }
            group.addTask {
                try? await Task.sleep(until: deadline + backstopGrace, clock: .continuous)
                return nil
            }
            var result: ItemOutcome = .cancelled
            while let next = await group.next() {
                group.cancelAll()
                if let next { result = next }
            }
            return result
        }
    }

    /// How long after the call's deadline the rest of a call is cancelled: the download's own
    /// timeout, at the deadline, comes first with the origin's advice.
    private static let backstopGrace: Duration = .milliseconds(100)

    /// Stops the preparer: later calls throw `.cancelled` at once, and this returns when the
    /// calls in progress have finished and every thread they used has stopped, every spool
    /// file is gone and every folder is let go (its lock released). Cancel your own tasks first
    /// for a quick stop: a call in progress finishes (or, cancelled, ends as `.cancelled`).
    ///
    ///     handlers.cancelAll()
    ///     await preparer.shutdown()   // then exit: no thread or file of the preparer is left
    ///
    /// Not for `AttachmentPreparer.shared`, which the whole process shares.
    public func shutdown() async { await runners.shutDown() }

    /// Returns once no call of this preparer holds a folder (tests: spool files are gone).
    func waitUntilIdle() async { await runners.waitUntilIdle() }
}
