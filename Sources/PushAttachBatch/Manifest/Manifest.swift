import Foundation
import MediaTypes
import PushAttach
import SystemSupport

/// Reading the journal back: the final `manifest.json`, and what `--resume` may skip.
///
///     try journal.close()
///     let document = try Manifest.finalize(dir: container.url)   // writes DIR/manifest.json
///
///     let resume = try Manifest.load(dir: container.url)          // before a --resume run
///     if resume.isPrepared(item.url) { skip }
///
/// `manifest.jsonl` (the journal) holds one line per finished item in the order items finished,
/// and may hold several lines for one item (a `--resume` redoes what was rejected or failed):
/// it is the crash-safe log. `manifest.json` holds the last line of each item, one entry per
/// input item, in input order (`ManifestEntry.index`). Both follow `docs/manifest.schema.json`.
package enum Manifest {
    package static let fileName = "manifest.json"
    /// `schema_version` in `manifest.json`: raised when a key is added, removed, renamed or
    /// changes its type or meaning.
    package static let schemaVersion = 4

    /// `DIR/manifest.json`: `{ "schema_version": 4, "created": ISO 8601, "entries": [...] }`.
    package struct Document: Codable, Sendable, Hashable {
        package var schemaVersion: Int
        package var created: String
        package var entries: [ManifestEntry]

        package init(schemaVersion: Int = Manifest.schemaVersion, created: String, entries: [ManifestEntry]) {
            self.schemaVersion = schemaVersion
            self.created = created
            self.entries = entries
        }

        enum CodingKeys: String, CodingKey {
            case schemaVersion = "schema_version", created, entries
            /// What the manifest called `schema_version` before it had a schema.
            case version
        }

        package init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            schemaVersion =
                try c.decodeIfPresent(Int.self, forKey: .schemaVersion) ?? c.decode(Int.self, forKey: .version)
            created = try c.decode(String.self, forKey: .created)
            entries = try c.decode([ManifestEntry].self, forKey: .entries)
        }

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(schemaVersion, forKey: .schemaVersion)
            try c.encode(created, forKey: .created)
            try c.encode(entries, forKey: .entries)
        }
    }

    /// The journal's entries, deduplicated, and what was skipped while reading it.
    package struct Journal: Sendable, Hashable {
        /// The last entry per item (index, input, line), in input order: by `index`, then by
        /// first appearance.
        package var entries: [ManifestEntry]
        /// One message per unreadable line, e.g. "manifest.jsonl:812: truncated last line skipped …".
        package var warnings: [String]
    }

    /// How `load` checks that a prepared file is still good.
    package enum FileCheck: Sendable, Hashable {
        /// The file exists with the recorded byte count. Enough given atomic writes.
        case size
        /// Size, and the SHA-256 recomputed (reads every file).
        case sizeAndHash
    }

    /// What a `--resume` run may skip.
    package struct ResumeState: Sendable, Hashable {
        /// Prepared entries whose files are on disk as recorded, by input URL.
        package var prepared: [String: ManifestEntry]
        /// Every entry of the journal (deduplicated), to carry into the new manifest.
        package var entries: [ManifestEntry]
        /// Journal lines skipped and prepared entries whose files are missing or changed.
        package var warnings: [String]

        package func isPrepared(_ url: String) -> Bool { prepared[url] != nil }

        /// The files and thumbnails of the prepared entries, relative to the container.
        package var referencedFiles: Set<String> {
            Set(prepared.values.flatMap { [$0.file, $0.thumbnail].compactMap { $0 } })
        }
    }

    /// Reads `DIR/manifest.jsonl`. A missing journal (or folder) is empty. Lines that do not
    /// decode are skipped with a warning (a truncated last line is the normal trace of a crash).
    /// A link at `manifest.jsonl` is refused (`ContainerError.unsafeEntry`), never followed.
    package static func readJournal(dir: URL) throws(ContainerError) -> Journal {
        guard let folder = try openFolder(dir) else { return Journal(entries: [], warnings: []) }
        return try readJournal(in: folder)
    }

    /// The folder at `dir` (following links to it: the caller's choice), or nil when missing.
    private static func openFolder(_ dir: URL) throws(ContainerError) -> DirectoryHandle? {
        do { return try DirectoryHandle(opening: dir.path) } catch {
            if case .system(_, _, ENOENT) = error { return nil }
            throw error
        }
    }

    static func readJournal(in folder: DirectoryHandle) throws(ContainerError) -> Journal {
        let index = try JournalIndex(in: folder)
        let decoder = JSONDecoder()
        var entries: [ManifestEntry] = []
        entries.reserveCapacity(index.spans.count)
        for span in index.spans {
            do { entries.append(try decoder.decode(ManifestEntry.self, from: try index.read(span))) } catch {
                throw .encoding(
                    path: folder.path(of: ManifestJournal.fileName),
                    reason: "a journal line changed while it was read: \(error)")
            }
        }
        return Journal(entries: entries, warnings: index.warnings)
    }

    /// What `finalize` wrote.
    package struct Finalized: Sendable, Hashable {
        /// Entries in `manifest.json` (the last one per item).
        package var count: Int
        /// Entries per status.
        package var statuses: [ManifestEntry.Status: Int]
        /// Journal lines skipped (see `Journal.warnings`).
        package var warnings: [String]
    }

    /// Builds `DIR/manifest.json` from the journal (and any shard journals beside it, complete or
    /// not: `merge` is the checked form) and writes it atomically, streaming: an external merge
    /// by input position (`JournalMerge`), so its memory does not grow with the run's length.
    ///
    /// The text: two-space indentation, `schema_version`, `created`, `entries`, each entry's keys
    /// in `ManifestEntry.keys` order.
    @discardableResult
    package static func finalize(dir: URL, now: Date = Date()) throws(ContainerError) -> Finalized {
        try merge(dir: dir, partial: true, now: now)
    }

    /// `finalize(dir:)` in the container open as `folder`, reaching nothing by path.
    @discardableResult
    static func finalize(in folder: DirectoryHandle, now: Date = Date()) throws(ContainerError) -> Finalized {
        try merge(in: folder, partial: true, now: now)
    }

    /// Reads the journal and keeps the prepared entries whose files (and thumbnails) are on disk
    /// as recorded. The caller skips those items on `--resume`.
    /// Files are looked at relative to the folder, without following links: an entry whose file
    /// (or a folder on its way) is a link is not prepared.
    package static func load(dir: URL, verify: FileCheck = .size) throws(ContainerError) -> ResumeState {
        guard let folder = try openFolder(dir) else { return ResumeState(prepared: [:], entries: [], warnings: []) }
        let journal = try readJournal(in: folder)
        var state = ResumeState(prepared: [:], entries: journal.entries, warnings: journal.warnings)
        for entry in journal.entries where entry.status == .prepared {
            if let problem = fileProblem(entry, in: folder, verify: verify) {
                state.warnings.append("\(entry.input): \(problem); it will be prepared again")
            } else {
                state.prepared[entry.input] = entry
            }
        }
        return state
    }

    static func fileProblem(_ entry: ManifestEntry, in folder: DirectoryHandle, verify: FileCheck)
        -> String?
    {
        guard let file = entry.file else { return "prepared entry has no file" }
        for path in [file, entry.thumbnail].compactMap({ $0 }) {
            if let problem = ContainerPath.problem(path) {
                return "file path \(DisplayText.escaped(path)) is not trusted (\(problem))"
            }
        }
        let info: SystemCall.FileStatus
        switch fileStatus(file, in: folder) {
        case .failure(.unsafeEntry(_, .symbolicLink)): return "\(file) is a symbolic link (or lies under one)"
        case .failure, .success(nil): return "\(file) is missing"
        case .success(let found?): info = found
        }
        guard info.kind == .regular else { return "\(file) is missing" }
        if let bytes = entry.bytes, info.size != bytes {
            return "\(file) has \(info.size) bytes, expected \(bytes)"
        }
        if let thumbnail = entry.thumbnail, (try? fileStatus(thumbnail, in: folder).get())?.kind != .regular {
            return "thumbnail \(thumbnail) is missing"
        }
        if verify == .sizeAndHash, let expected = entry.sha256 {
            guard let digest = try? sha256(of: file, in: folder) else { return "\(file) is unreadable" }
            if digest != expected.lowercased() { return "\(file) does not match its sha256" }
        }
        return nil
    }

    /// What is at `relative` inside `folder`, reached without following links; nil when missing.
    private static func fileStatus(_ relative: String, in folder: DirectoryHandle)
        -> Result<SystemCall.FileStatus?, ContainerError>
    {
        Result { () throws(ContainerError) in
            let (parent, name) = try folder.walk(to: relative)
            let info = try parent.status(name)
            if info?.kind == .symbolicLink { throw .unsafeEntry(path: parent.path(of: name), found: .symbolicLink) }
            return info
        }
    }

    /// The SHA-256 of the file at `relative`, read in 64 KB pieces through a descriptor opened
    /// without following links.
    private static func sha256(of relative: String, in folder: DirectoryHandle) throws(ContainerError) -> String {
        let (parent, name) = try folder.walk(to: relative)
        let fd = try parent.openFile(name, .readOnly)
        let path = parent.path(of: name)
        defer { try? SystemCall.close(fd, path: path) }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try SystemCall.read(fd, into: &buffer, path: path)
            if count == 0 { break }
            hasher.update(buffer[0..<count])
        }
        return hasher.finalize().hexString
    }

    /// What identifies an entry: a later line with the same key replaces an earlier one.
    struct Key: Hashable {
        var index: Int
        var input: String
        var line: Int
    }
}

/// Where in the journal the last line of each item is, in input order: the first pass of
/// `Manifest.finalize` and of `Manifest.readJournal`.
struct JournalIndex {
    struct Span {
        var offset: Int
        var length: Int
    }

    /// In input order: by the entry's `index`, then by the first appearance of its key (entries
    /// of one index appear in the order they were first written).
    private(set) var spans: [Span] = []
    private(set) var warnings: [String] = []
    private let fd: Int32
    private let path: String
    private let holder: Descriptor

    /// Closes the descriptor when the index goes.
    private final class Descriptor {
        let fd: Int32
        let path: String
        init(_ fd: Int32, path: String) { (self.fd, self.path) = (fd, path) }
        deinit { if fd >= 0 { try? SystemCall.close(fd, path: path) } }
    }

    /// The journal in `folder`, opened (twice: one descriptor to scan, one to read spans back)
    /// without following a link. A missing journal is empty.
    init(in folder: DirectoryHandle) throws(ContainerError) {
        let path = folder.path(of: ManifestJournal.fileName)
        self.path = path
        let fd = try folder.openFileIfPresent(ManifestJournal.fileName) ?? -1
        self.fd = fd
        holder = Descriptor(fd, path: path)
        guard fd >= 0 else { return }
        var lines = try JournalLines<ManifestEntry>(in: folder, name: ManifestJournal.fileName)
        var slot: [Manifest.Key: Int] = [:]
        var found: [(index: Int, span: Span)] = []
        while let line = try lines.next() {
            let entry = line.entry
            let span = Span(offset: line.offset, length: line.length)
            let key = Manifest.Key(index: entry.index, input: entry.input, line: entry.line)
            if let known = slot[key] {
                found[known].span = span
            } else {
                slot[key] = found.count
                found.append((entry.index, span))
            }
        }
        // Stable: entries of one index keep the order their keys first appeared in.
        let order = found.indices.sorted { (found[$0].index, $0) < (found[$1].index, $1) }
        spans = order.map { found[$0].span }
        warnings = lines.warnings
    }

    func read(_ span: Span) throws(ContainerError) -> Data {
        var bytes = [UInt8](repeating: 0, count: span.length)
        let count = try SystemCall.read(fd, into: &bytes, at: span.offset, path: path)
        guard count == span.length else { throw .system(call: "pread", path: path, errno: EIO) }
        return Data(bytes)
    }
}
