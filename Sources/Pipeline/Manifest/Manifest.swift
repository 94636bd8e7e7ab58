import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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

    /// Reads `DIR/manifest.jsonl`. A missing journal is empty. Lines that do not decode are
    /// skipped with a warning (a truncated last line is the normal trace of a crash).
    public static func readJournal(dir: URL) throws(ContainerError) -> Journal {
        let path = dir.appendingPathComponent(ManifestJournal.fileName).path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return Journal(entries: [], warnings: []) }
            throw .system(call: "open", path: path, errno: errno)
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

    /// Builds `DIR/manifest.json` from the journal and writes it atomically.
    @discardableResult
    public static func finalize(dir: URL, now: Date = Date()) throws(ContainerError) -> Document {
        let journal = try readJournal(dir: dir)
        let formatter = ISO8601DateFormatter()
        let document = Document(version: version, created: formatter.string(from: now), entries: journal.entries)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let path = dir.appendingPathComponent(fileName)
        let data: Data
        do { data = try encoder.encode(document) } catch { throw .encoding(path: path.path, reason: "\(error)") }
        try AtomicWriter.write(data + Data([0x0A]), to: path)
        return document
    }

    /// Reads the journal and keeps the prepared entries whose files (and thumbnails) are on disk
    /// as recorded. The caller skips those items on `--resume`.
    public static func load(dir: URL, verify: Verification = .size) throws(ContainerError) -> ResumeState {
        let journal = try readJournal(dir: dir)
        var state = ResumeState(prepared: [:], entries: journal.entries, warnings: journal.warnings)
        for entry in journal.entries where entry.status == .prepared {
            if let problem = fileProblem(entry, dir: dir, verify: verify) {
                state.warnings.append("\(entry.input): \(problem); it will be prepared again")
            } else {
                state.prepared[entry.input] = entry
            }
        }
        return state
    }

    private static func fileProblem(_ entry: ManifestEntry, dir: URL, verify: Verification) -> String? {
        guard let file = entry.file else { return "prepared entry has no file" }
        guard isInside(file), entry.thumbnail.map(isInside) ?? true else {
            return "file path \(file) leaves the container"
        }
        let url = dir.appendingPathComponent(file)
        var info = stat()
        guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return "\(file) is missing" }
        if let bytes = entry.bytes, Int(info.st_size) != bytes {
            return "\(file) has \(info.st_size) bytes, expected \(bytes)"
        }
        if let thumbnail = entry.thumbnail,
            !FileManager.default.fileExists(atPath: dir.appendingPathComponent(thumbnail).path)
        {
            return "thumbnail \(thumbnail) is missing"
        }
        if verify == .sizeAndHash, let expected = entry.sha256 {
            guard let data = try? Data(contentsOf: url, options: .mappedIfSafe) else { return "\(file) is unreadable" }
            if SHA256.hexDigest(of: data) != expected.lowercased() { return "\(file) does not match its sha256" }
        }
        return nil
    }

    /// A relative path with no `..` component.
    private static func isInside(_ relative: String) -> Bool {
        !relative.hasPrefix("/") && !relative.split(separator: "/").contains("..")
    }

    private struct Key: Hashable {
        var input: String
        var line: Int
    }
}
