import Foundation
import MediaTypes

/// Reading the journal back: the final `manifest.json`, and what `--resume` may skip.
///
///     try journal.close()
///     let document = try Manifest.finalize(dir: container.url)   // writes DIR/manifest.json
///
///     let resume = try Manifest.load(dir: container.url)          // before a --resume run
///     if resume.isPrepared(item.url) { skip }
public enum Manifest {
    public static let fileName = "manifest.json"
    public static let version = 1

    /// `DIR/manifest.json`: `{ "version": 1, "created": ISO 8601, "entries": [...] }`.
    public struct Document: Codable, Sendable, Hashable {
        public var version: Int
        public var created: String
        public var entries: [ManifestEntry]
    }

    /// The journal's entries, deduplicated, and what was skipped while reading it.
    public struct Journal: Sendable, Hashable {
        /// The last entry per (input, line), in order of first appearance.
        public var entries: [ManifestEntry]
        /// One message per unreadable line, e.g. "manifest.jsonl:812: truncated last line skipped …".
        public var warnings: [String]
    }

    /// How `load` checks that a prepared file is still good.
    public enum Verification: Sendable, Hashable {
        /// The file exists with the recorded byte count. Enough given atomic writes.
        case size
        /// Size, and the SHA-256 recomputed (reads every file).
        case sizeAndHash
    }

    /// What a `--resume` run may skip.
    public struct ResumeState: Sendable, Hashable {
        /// Prepared entries whose files are on disk as recorded, by input URL.
        public var prepared: [String: ManifestEntry]
        /// Every entry of the journal (deduplicated), to carry into the new manifest.
        public var entries: [ManifestEntry]
        /// Journal lines skipped and prepared entries whose files are missing or changed.
        public var warnings: [String]

        public func isPrepared(_ url: String) -> Bool { prepared[url] != nil }

        /// The files and thumbnails of the prepared entries, relative to the container.
        public var referencedFiles: Set<String> {
            Set(prepared.values.flatMap { [$0.file, $0.thumbnail].compactMap { $0 } })
        }
    }

    /// Reads `DIR/manifest.jsonl`. A missing journal (or folder) is empty. Lines that do not
    /// decode are skipped with a warning (a truncated last line is the normal trace of a crash).
    /// A link at `manifest.jsonl` is refused (`ContainerError.unsafeEntry`), never followed.
    public static func readJournal(dir: URL) throws(ContainerError) -> Journal {
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
        let path = folder.path(of: ManifestJournal.fileName)
        guard let fd = try folder.openFileIfPresent(ManifestJournal.fileName) else {
            return Journal(entries: [], warnings: [])
        }
        let reader = LineReader(descriptor: fd, name: path, maxLineBytes: 4 * 1024 * 1024)
        let decoder = JSONDecoder()
        var order: [Key] = []
        var latest: [Key: ManifestEntry] = [:]
        var bad: [(line: Int, reason: String)] = []
        var lineNumber = 0
        while let line = try reader.nextLine() {
            lineNumber += 1
            guard case .text(let bytes) = line else {
                bad.append((lineNumber, "line too long"))
                continue
            }
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { continue }
            do {
                let entry = try decoder.decode(ManifestEntry.self, from: Data(bytes))
                let key = Key(input: entry.input, line: entry.line)
                if latest.updateValue(entry, forKey: key) == nil { order.append(key) }
            } catch {
                bad.append((lineNumber, "not a manifest entry"))
            }
        }
        let warnings = bad.map { item in
            item.line == lineNumber
                ? "\(ManifestJournal.fileName):\(item.line): truncated last line skipped (the previous run was interrupted)"
                : "\(ManifestJournal.fileName):\(item.line): \(item.reason), skipped"
        }
        return Journal(entries: order.map { latest[$0]! }, warnings: warnings)
    }

    /// What `finalize` wrote.
    public struct Finalized: Sendable, Hashable {
        /// Entries in `manifest.json` (the last one per input and line).
        public var count: Int
        /// Entries per status.
        public var statuses: [ManifestEntry.Status: Int]
        /// Journal lines skipped (see `Journal.warnings`).
        public var warnings: [String]
    }

    /// Builds `DIR/manifest.json` from the journal and writes it atomically, streaming: the
    /// journal is read twice, once to find the last line of each (input, line) and once to copy
    /// those lines out, re-encoded, one at a time. Memory: about 100 bytes per distinct entry
    /// (its key and the span of its line), never the entries themselves, so a run's final step
    /// does not grow with its length as a whole `Document` would (~4.5 KB per entry through
    /// `JSONEncoder`).
    @discardableResult
    public static func finalize(dir: URL, now: Date = Date()) throws(ContainerError) -> Finalized {
        let folder = try DirectoryHandle(opening: dir.path)
        let path = folder.path(of: ManifestJournal.fileName)
        let index = try JournalIndex(in: folder)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let created = ISO8601DateFormatter().string(from: now)
        let file = try AtomicFile(in: folder, name: fileName)
        var statuses: [ManifestEntry.Status: Int] = [:]
        try file.append(Data("{\n  \"created\" : \"\(created)\",\n  \"entries\" : [".utf8))
        let decoder = JSONDecoder()
        var batch = Data()
        for (number, span) in index.spans.enumerated() {
            let line = try index.read(span)
            let entry: ManifestEntry
            let encoded: Data
            do {
                entry = try decoder.decode(ManifestEntry.self, from: line)
                // U+2028 and U+2029 (and the other characters DisplayText escapes) as \uXXXX.
                encoded = DisplayText.escapedJSON(try encoder.encode(entry))
            } catch {
                throw .encoding(path: path, reason: "a journal line changed while the manifest was written: \(error)")
            }
            statuses[entry.status, default: 0] += 1
            batch.append(contentsOf: (number == 0 ? "\n    " : ",\n    ").utf8)
            // Indent the entry's own lines to sit inside "entries" (JSON strings hold no raw newline).
            // Blank lines (inside an empty array) stay blank, as JSONEncoder writes them.
            var previous: UInt8 = 0
            for byte in encoded {
                if previous == 0x0A && byte != 0x0A { batch.append(contentsOf: [0x20, 0x20, 0x20, 0x20]) }
                batch.append(byte)
                previous = byte
            }
            if batch.count >= 1 << 16 {
                try file.append(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        batch.append(contentsOf: (index.spans.isEmpty ? "\n\n  ],\n" : "\n  ],\n").utf8)
        batch.append(contentsOf: "  \"version\" : \(version)\n}\n".utf8)
        try file.append(batch)
        try file.commit()
        return Finalized(count: index.spans.count, statuses: statuses, warnings: index.warnings)
    }

    /// Reads the journal and keeps the prepared entries whose files (and thumbnails) are on disk
    /// as recorded. The caller skips those items on `--resume`.
    /// Files are looked at relative to the folder, without following links: an entry whose file
    /// (or a folder on its way) is a link is not prepared.
    public static func load(dir: URL, verify: Verification = .size) throws(ContainerError) -> ResumeState {
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

    private static func fileProblem(_ entry: ManifestEntry, in folder: DirectoryHandle, verify: Verification)
        -> String?
    {
        guard let file = entry.file else { return "prepared entry has no file" }
        guard isInside(file), entry.thumbnail.map(isInside) ?? true else {
            return "file path \(file) leaves the container"
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

    /// A relative path with no `..` component.
    private static func isInside(_ relative: String) -> Bool {
        !relative.hasPrefix("/") && !relative.split(separator: "/").contains("..")
    }

    struct Key: Hashable {
        var input: String
        var line: Int
    }
}

/// Where in the journal the last line of each (input, line) is, in order of first appearance:
/// the first pass of `Manifest.finalize`.
struct JournalIndex {
    struct Span {
        var offset: Int
        var length: Int
    }

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
        let scan = try folder.openFile(ManifestJournal.fileName, .readOnly)
        let reader = LineReader(descriptor: scan, name: path, maxLineBytes: 4 * 1024 * 1024)
        let decoder = JSONDecoder()
        var slot: [Manifest.Key: Int] = [:]
        var offset = 0
        var lineNumber = 0
        var bad: [(line: Int, reason: String)] = []
        while let line = try reader.nextLine() {
            lineNumber += 1
            let start = offset
            switch line {
            case .tooLong(let bytes):
                offset += bytes + 1
                bad.append((lineNumber, "line too long"))
                continue
            case .text(let bytes):
                offset += bytes.count + 1
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { continue }
                guard let entry = try? decoder.decode(ManifestEntry.self, from: Data(bytes)) else {
                    bad.append((lineNumber, "not a manifest entry"))
                    continue
                }
                let span = Span(offset: start, length: bytes.count)
                let key = Manifest.Key(input: entry.input, line: entry.line)
                if let index = slot[key] {
                    spans[index] = span
                } else {
                    slot[key] = spans.count
                    spans.append(span)
                }
            }
        }
        warnings = bad.map { item in
            item.line == lineNumber
                ? "\(ManifestJournal.fileName):\(item.line): truncated last line skipped (the previous run was interrupted)"
                : "\(ManifestJournal.fileName):\(item.line): \(item.reason), skipped"
        }
    }

    func read(_ span: Span) throws(ContainerError) -> Data {
        var bytes = [UInt8](repeating: 0, count: span.length)
        let count = try SystemCall.read(fd, into: &bytes, at: span.offset, path: path)
        guard count == span.length else { throw .system(call: "pread", path: path, errno: EIO) }
        return Data(bytes)
    }
}
