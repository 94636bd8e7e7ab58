import Foundation
import MediaTypes
import PushPayloads
import SystemSupport

/// A disk cache of prepared attachments (and of refusals, for a short time), keyed by link: what
/// `pushattach serve` answers from, usable by any Swift service. Any number of processes may
/// share one folder (replicas on one volume): entries are written atomically, eviction is done
/// by one process at a time under a lock, and removing an entry another process is sending is
/// safe.
///
///     let cache = try AttachmentCache(folder: URL(fileURLWithPath: "/var/cache/pushattach"))
///     let key = AttachmentCache.Key(link)
///     if let hit = cache.entry(for: key) { return try hit.body() }
///     let attachment = try await cache.prepare(AttachmentRequest(url: link.source, typeHint: link.typeHint), with: preparer)
///     try cache.store(attachment, for: key)
///
/// Layout: `entries/<2 hex>/<key>` (a short text head, then the body), `work/` (the preparer's
/// folder; a stored attachment's file is removed from it). Least recently used entries are
/// removed once the entries pass `capacity`. The folder is opened once; every name under it
/// (`work/` included) is reached from that descriptor without following a link, so a link
/// planted inside cannot send a write elsewhere.
public final class AttachmentCache: Sendable {
    /// Which answer an entry holds: a digest of the normalised source URL, the type hint, the
    /// thumbnail size and a variant string (what else changes the output: the server's long
    /// side and quality).
    public struct Key: Sendable, Hashable, CustomStringConvertible {
        /// SHA-256 of the key's parts, 64 lower-case hex digits: the entry's file name.
        public let digest: String

        /// The key of `link` under `variant`.
        public init(_ link: AttachmentLink, variant: String = "") {
            let parts = [
                "pushattach-cache-v1", Self.normalised(link.source), link.typeHint ?? "",
                link.thumbnailSize.map(String.init) ?? "-", variant,
            ]
            digest = SHA256.hexDigest(of: Data(parts.joined(separator: "\n").utf8))
        }

        /// The digest.
        public var description: String { digest }

        /// `url` with its scheme and host lower-cased, the default port and the fragment dropped,
        /// and an empty path written `/`: spellings of one resource share an entry (the identity a
        /// batch's reader gives a URL, too).
        public static func normalised(_ url: URL) -> String { PayloadConventions.identity(of: url.absoluteString) }
    }

    /// What an entry answers with.
    public struct Answer: Sendable, Hashable {
        /// 200, or the status of a cached refusal (422, 404).
        public var status: Int
        /// The body's MIME type (`image/jpeg`; `application/json` for a refusal).
        public var contentType: String
        /// The UTI for `UNNotificationAttachmentOptionsTypeHintKey`, for a 200.
        public var typeHint: String?
        /// The body's SHA-256, lower-case hex (the strong ETag), for a 200.
        public var sha256: String?
        /// The `UNErrorCode` of a refusal.
        public var errorCode: Int?
        /// The body's length in bytes.
        public var byteCount: Int
    }

    /// An entry opened for reading. The body is read from the file as it was when opened, even
    /// if another process replaces or evicts it meanwhile.
    public final class Entry: Sendable {
        /// What it answers with.
        public let answer: Answer
        /// Seconds since it was stored.
        public let age: Double
        private let open: CacheStore.OpenEntry
        private let names: SettingNames
        fileprivate var openEntry: CacheStore.OpenEntry { open }

        init(_ open: CacheStore.OpenEntry, names: SettingNames) {
            self.names = names
            self.open = open
            age = open.age
            let record = open.record
            answer = Answer(
                status: record.status, contentType: record.contentType, typeHint: record.typeHint,
                sha256: record.sha256, errorCode: record.errorCode, byteCount: record.length)
        }

        /// The body, read whole.
        ///
        /// - Throws: `AttachmentError` of kind `.writeFailed` when the file cannot be read.
        public func body() throws(AttachmentError) -> Data {
            do { return try open.body() } catch { throw AttachmentError(cacheFailure: error, names: names) }
        }

        /// Hands over the open file: a descriptor the caller now owns (and closes), and the
        /// offset its body starts at (for `sendfile`, or `MHD_create_response_from_fd_at_offset64`).
        /// The descriptor is -1 once taken.
        public func takeDescriptor() -> (descriptor: Int32, offset: Int) {
            (open.takeDescriptor(), open.bodyOffset)
        }

        /// A new descriptor of the open file for the caller to close, and the body's offset: for
        /// sending one entry to several clients (each gets its own). Nil when no descriptor can be
        /// made (the process is out of them) or `takeDescriptor` took the entry's own.
        public func duplicateDescriptor() -> (descriptor: Int32, offset: Int)? {
            open.duplicateDescriptor().map { ($0, open.bodyOffset) }
        }
    }

    /// The cache's folder.
    public var folder: URL { store.root }
    /// The folder `prepare(_:with:)` prepares into before `store`: `work/` in the cache folder.
    /// Its path is for messages; the cache reaches it through the descriptor it opened.
    public let workFolder: URL
    private let work: DirectoryHandle
    /// The most bytes the entries may hold before the least recently used are removed.
    public var capacity: Int { store.capacity }
    private let store: CacheStore
    private let names: SettingNames

    /// Opens the cache in `folder`, creating it when missing.
    ///
    /// - Parameters:
    ///   - folder: the cache's folder (its `entries/` and `work/`).
    ///   - capacity: bytes of entries kept; the least recently used go first. Default 1 GB.
    ///   - rejectionTTL: how long a refusal (422, 404) is answered from the cache. Default 60 s.
    ///   - settingNames: how its errors spell the settings they name; the folder is
    ///     `Setting.container` ("cache folder" unless given another name, as `serve`'s `--cache`).
    /// - Throws: `AttachmentError` of kind `.writeFailed` when the folder cannot be created or
    ///   opened, or when `work/` (or `entries/`) in it is a symbolic link.
    public init(
        folder: URL, capacity: Int = 1_000_000_000, rejectionTTL: Duration = .seconds(60),
        settingNames: SettingNames = SettingNames([.container: "cache folder"])
    ) throws(AttachmentError) {
        names = settingNames
        do {
            store = try CacheStore(root: folder, capacity: capacity, rejectionTTL: rejectionTTL.seconds)
            work = try store.rootHandle.folder("work", create: true)
        } catch { throw AttachmentError(cacheFailure: error, names: settingNames) }
        workFolder = URL(fileURLWithPath: work.path, isDirectory: true)
    }

    /// Prepares `request` with `preparer` into `workFolder`, reached through the folder this cache
    /// opened (a link planted at `work` afterwards is not followed). `store` it next.
    ///
    /// - Throws: `AttachmentError`, as `AttachmentPreparer.prepare(_:into:)`.
    public func prepare(_ request: AttachmentRequest, with preparer: AttachmentPreparer) async throws(AttachmentError)
        -> PreparedAttachment
    {
        try await preparer.prepare(request, into: work)
    }

    /// Keeps `preparer`'s pipeline in `workFolder` open until the hold is released
    /// (`AttachmentPreparer.hold(_:)`): a server preparing into its cache holds it for its life,
    /// so a preparation does not start the pipeline anew.
    ///
    /// - Throws: `AttachmentError`, as `AttachmentPreparer.hold(_:)`.
    public func hold(_ preparer: AttachmentPreparer) throws(AttachmentError) -> AttachmentPreparer.FolderHold {
        try preparer.hold(work)
    }

    /// The entry of `key`, or nil: none, unreadable, or a refusal past its TTL.
    public func entry(for key: Key) -> Entry? { store.open(key.digest).map { Entry($0, names: names) } }

    /// Whether `entry` is still what the cache answers for its key: the same file under the
    /// name (not replaced, not evicted by this or another process), and for a refusal, within
    /// `rejectionTTL`. One `stat` of the name, nothing opened or read: for a server that keeps
    /// a hot entry's file open (and its answer made) between hits, and asks this on each hit.
    /// A current 200 counts as a hit for the least-recently-used order, as `entry(for:)` does.
    ///
    /// The file is told by its device and inode, so the answer holds while the entry's file is
    /// open (its own descriptor, or one taken or duplicated from it and not yet closed): once
    /// every descriptor of a removed file is closed, a new entry may get its inode number.
    ///
    ///     if let kept, cache.isCurrent(kept.entry) { return kept.response }
    public func isCurrent(_ entry: Entry) -> Bool { store.isCurrent(entry.openEntry) }

    /// Stores `attachment`'s file as the entry of `key` and removes it (and its thumbnail) from
    /// `workFolder`. Returns the entry, open: it can be sent even if an eviction (this one's, or
    /// another process's) removes it from the folder at once.
    ///
    /// - Throws: `AttachmentError` of kind `.writeFailed` when the entry cannot be written.
    ///
    /// A file `prepare(_:with:)` made is read and removed through `work/`'s descriptor; one from
    /// elsewhere by its path.
    @discardableResult
    public func store(_ attachment: PreparedAttachment, for key: Key) throws(AttachmentError) -> Entry {
        let file = inWork(attachment.fileURL)
        defer {
            Self.remove(attachment.fileURL, inWork: file)
            if let thumbnail = attachment.thumbnailURL { Self.remove(thumbnail, inWork: inWork(thumbnail)) }
        }
        let record = CacheStore.Record(
            status: 200, contentType: attachment.format.mimeType, typeHint: attachment.typeHint,
            sha256: attachment.sha256, length: attachment.byteCount)
        do throws(ContainerError) {
            let source: Int32
            let path = attachment.fileURL.path
            if let (folder, name) = file {
                source = try folder.openFile(name, .readOnly)
            } else {
                source = try SystemCall.open(path, .readOnly)
            }
            defer { try? SystemCall.close(source, path: path) }
            return Entry(try store.store(key.digest, record: record, copying: source, path: path), names: names)
        } catch {
            throw AttachmentError(cacheFailure: error, names: names)
        }
    }

    /// The folder (reached from `work/` without following links) and name of `file` when it is
    /// under `work/`; nil for a file elsewhere.
    private func inWork(_ file: URL) -> (DirectoryHandle, String)? {
        let prefix = work.path.hasSuffix("/") ? work.path : work.path + "/"
        guard file.path.hasPrefix(prefix) else { return nil }
        return try? work.walk(to: String(file.path.dropFirst(prefix.count)))
    }

    private static func remove(_ file: URL, inWork found: (DirectoryHandle, String)?) {
        if let (folder, name) = found {
            try? folder.remove(name)
        } else {
            try? FileManager.default.removeItem(at: file)
        }
    }

    /// Stores a thumbnail as the entry of `key`; returns the entry, open.
    @discardableResult
    public func store(_ thumbnail: Thumbnail, for key: Key) throws(AttachmentError) -> Entry {
        try store(thumbnail.data, format: thumbnail.format, for: key)
    }

    /// Stores `data`, a file of `format` made by other means, as the entry of `key`; returns the
    /// entry, open.
    @discardableResult
    public func store(_ data: Data, format: MediaFormat, for key: Key) throws(AttachmentError) -> Entry {
        let record = CacheStore.Record(
            status: 200, contentType: format.mimeType, typeHint: format.uti, sha256: SHA256.hexDigest(of: data),
            length: data.count)
        do {
            return Entry(try store.store(key.digest, record: record, body: data), names: names)
        } catch {
            throw AttachmentError(cacheFailure: error, names: names)
        }
    }

    /// Stores a refusal as the entry of `key`, answered for `rejectionTTL`; one that is not
    /// cacheable (`AttachmentProblem.isCacheable`) is not stored.
    public func store(_ problem: AttachmentProblem, for key: Key) throws(AttachmentError) {
        guard problem.isCacheable else { return }
        let record = CacheStore.Record(
            status: problem.status, contentType: "application/json", errorCode: problem.errorCode, length: 0)
        do { try store.store(key.digest, record: record, body: problem.json) } catch {
            throw AttachmentError(cacheFailure: error, names: names)
        }
    }

    // MARK: - One preparation per key across processes

    /// The right to prepare one key for every process sharing the cache folder: an exclusive
    /// `flock` on `leases/<key>` in it. Release it once the entry is stored (or the preparation
    /// failed); a process that dies holding it releases it with its lock.
    public final class Lease: Sendable {
        private let file: CacheStore.LeaseFile

        init(_ file: CacheStore.LeaseFile) { self.file = file }

        /// Lets the key go: another process waiting in `claim` takes it over (and finds the
        /// entry, if one was stored). Safe to call more than once; done when the lease goes too.
        public func release() { file.release() }
    }

    /// What `claim` found.
    public enum Claim: Sendable {
        /// The key's entry: another process (or this one) stored it meanwhile.
        case entry(Entry)
        /// The key's lease: prepare, `store`, then `release()` it.
        case lease(Lease)
    }

    /// Waits until the entry of `key` is in the cache or this caller holds its lease, whichever
    /// comes first, looking every `interval`: so a herd spread over several processes sharing
    /// the folder makes one preparation. A holder killed mid-preparation releases the lease with
    /// its lock, and a waiter takes over; a holder that failed without storing a refusal lets
    /// the next waiter try again. Per process, put the calls through a `SingleFlight` first.
    ///
    ///     switch try await cache.claim(key) {
    ///     case .entry(let entry): return entry
    ///     case .lease(let lease):
    ///         defer { lease.release() }
    ///         return try cache.store(try await cache.prepare(request, with: preparer), for: key)
    ///     }
    ///
    /// - Throws: `AttachmentError` of kind `.cancelled` when the calling task is cancelled while
    ///   waiting, `.writeFailed` when the lease file cannot be opened (the folder is not
    ///   writable, or a link is planted there).
    public func claim(_ key: Key, checkingEvery interval: Duration = .milliseconds(50)) async throws(AttachmentError)
        -> Claim
    {
        while true {
            if let entry = entry(for: key) { return .entry(entry) }
            let file: CacheStore.LeaseFile?
            do { file = try store.lease(key.digest) } catch { throw AttachmentError(cacheFailure: error, names: names) }
            if let file {
                // Stored and let go between the look and the lock.
                if let entry = entry(for: key) {
                    file.release()
                    return .entry(entry)
                }
                return .lease(Lease(file))
            }
            do { try await Task.sleep(for: interval) } catch {
                throw AttachmentError(
                    kind: .cancelled, reason: "cancelled while another process prepared the same link; nothing was written")
            }
        }
    }

    /// Bytes the entries hold, as this process last counted them.
    public var usage: Int { store.usage }

    /// Removes expired refusals, then the least recently used entries until under 90 % of
    /// `capacity`; returns how many were removed (0 when another process is evicting).
    @discardableResult
    public func evict() -> Int { store.evict() }
}

extension AttachmentError {
    /// A cache file that could not be written or read.
    init(cacheFailure error: ContainerError, names: SettingNames) {
        self.init(
            kind: .writeFailed, reason: "the attachment cache: \(error.description(naming: names))",
            underlying: .container(error))
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
