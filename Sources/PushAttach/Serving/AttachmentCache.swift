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
///     let attachment = try await preparer.prepare(link.source, typeHint: link.typeHint, into: cache.workFolder)
///     try cache.store(attachment, for: key)
///
/// Layout: `entries/<2 hex>/<key>` (a short text head, then the body), `work/` (the preparer's
/// folder; a stored attachment's file is removed from it). Least recently used entries are
/// removed once the entries pass `capacity`.
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
    /// The folder to prepare into (`AttachmentPreparer.prepare(_:into:)`) before `store`.
    public let workFolder: URL
    /// The most bytes the entries may hold before the least recently used are removed.
    public var capacity: Int { store.capacity }
    private let store: CacheStore
    private let names: SettingNames

    /// Opens the cache in `folder`, creating it when missing.
    ///
    /// - Parameters:
    ///   - capacity: bytes of entries kept; the least recently used go first. Default 1 GB.
    ///   - rejectionTTL: how long a refusal (422, 404) is answered from the cache. Default 60 s.
    ///   - settingNames: how its errors spell the settings they name; the folder is
    ///     `Setting.container` ("cache folder" unless given another name, as `serve`'s `--cache`).
    /// - Throws: `AttachmentError` of kind `.writeFailed` when the folder cannot be created or
    ///   opened.
    public init(
        folder: URL, capacity: Int = 1_000_000_000, rejectionTTL: Duration = .seconds(60),
        settingNames: SettingNames = SettingNames([.container: "cache folder"])
    ) throws(AttachmentError) {
        names = settingNames
        do {
            store = try CacheStore(root: folder, capacity: capacity, rejectionTTL: rejectionTTL.seconds)
        } catch { throw AttachmentError(cacheFailure: error, names: settingNames) }
        workFolder = folder.appendingPathComponent("work", isDirectory: true)
    }

    /// The entry of `key`, or nil: none, unreadable, or a refusal past its TTL.
    public func entry(for key: Key) -> Entry? { store.open(key.digest).map { Entry($0, names: names) } }

    /// Stores `attachment`'s file as the entry of `key` and removes it (and its thumbnail) from
    /// `workFolder`. Returns the entry, open: it can be sent even if an eviction (this one's, or
    /// another process's) removes it from the folder at once.
    ///
    /// - Throws: `AttachmentError` of kind `.writeFailed` when the entry cannot be written.
    @discardableResult
    public func store(_ attachment: PreparedAttachment, for key: Key) throws(AttachmentError) -> Entry {
        defer {
            try? FileManager.default.removeItem(at: attachment.fileURL)
            if let thumbnail = attachment.thumbnailURL { try? FileManager.default.removeItem(at: thumbnail) }
        }
        let record = CacheStore.Record(
            status: 200, contentType: attachment.format.mimeType, typeHint: attachment.typeHint,
            sha256: attachment.sha256, length: attachment.byteCount)
        do {
            return Entry(try store.store(key.digest, record: record, copying: attachment.fileURL), names: names)
        } catch {
            throw AttachmentError(cacheFailure: error, names: names)
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
