import Foundation
import MediaTypes
import PushAttach
import SystemSupport

extension Manifest {
    /// Writes `DIR/manifest.json` from every journal in the container (`manifest.jsonl` and the
    /// shards' `manifest.K-of-N.jsonl`), one entry per input item in input order, streamed.
    ///
    ///     try Manifest.merge(dir: container)                   // all shards must be complete
    ///     try Manifest.merge(dir: container, partial: true)    // what the journals hold so far
    ///
    /// Refuses (`ContainerError.mismatched`) shard journals of two shard counts, and, unless
    /// `partial`, a set of shards with one missing or not marked done (`Shard.doneName`).
    /// Otherwise as `finalize`: the last line of each item wins (across journals, the later one
    /// in `JournalSet.names` order), entries in `index` order, each entry's keys in
    /// `ManifestEntry.keys` order, the same bytes `docs/manifest.schema.json` describes.
    ///
    /// - Complexity: an external merge by input position. Pass 1 reads each journal line by
    ///   line and keeps a 40-byte record per line (position, key digest, where the line is),
    ///   sorted in chunks of `chunkRecords` (10 MB by default) written to unlinked temporaries
    ///   in DIR; pass 2 merges the chunks k ways and copies each winning line out, re-encoded,
    ///   one at a time. Memory: one chunk, one 64 KB buffer per chunk, never the entries.
    @discardableResult
    package static func merge(dir: URL, partial: Bool = false, now: Date = Date(), chunkRecords: Int = 1 << 18)
        throws(ContainerError) -> Finalized
    {
        try merge(in: DirectoryHandle(opening: dir.path), partial: partial, now: now, chunkRecords: chunkRecords)
    }

    /// `merge(dir:…)` in the container open as `folder`: the journals, the sorted runs and
    /// `manifest.json` are all reached relative to its descriptor, so a run merges into the
    /// container it opened even if the path now names another folder.
    @discardableResult
    static func merge(
        in folder: DirectoryHandle, partial: Bool = false, now: Date = Date(), chunkRecords: Int = 1 << 18
    ) throws(ContainerError) -> Finalized {
        let set = try JournalSet(in: folder)
        if !partial, let message = set.incompleteMessage {
            throw .incompleteShards(path: folder.path, missing: message)
        }
        return try JournalMerge(folder: folder, names: set.names, chunkRecords: chunkRecords).write(now: now)
    }

    /// `merge` as a command runs it: under the container's lock, so it is refused
    /// (`ContainerError.locked`) while a run or any shard is still writing, and only on a folder
    /// holding at least one journal. The folder is opened once: the lock, the journals and
    /// `manifest.json` are all in that one.
    @discardableResult
    package static func mergeContainer(dir: URL, partial: Bool = false, now: Date = Date())
        throws(ContainerError) -> Finalized
    {
        let folder = try DirectoryHandle(opening: dir.path)
        guard try !JournalSet(in: folder).names.isEmpty else {
            throw .mismatched(
                path: folder.path,
                reason: "no manifest.jsonl or manifest.K-of-N.jsonl here: not a container a prepare run wrote into")
        }
        let lock = try ContainerLock(in: folder)
        defer { lock.release() }
        return try merge(in: folder, partial: partial, now: now)
    }
}

/// The external merge behind `Manifest.merge` and `Manifest.finalize`.
struct JournalMerge {
    /// One journal line: 40 bytes, compared by (index, key, rank, offset).
    struct Record: Comparable {
        var index: Int64
        var keyHigh: UInt64
        var keyLow: UInt64
        var rank: UInt32
        var length: UInt32
        var offset: Int64

        static func < (a: Record, b: Record) -> Bool {
            (a.index, a.keyHigh, a.keyLow, a.rank, a.offset) < (b.index, b.keyHigh, b.keyLow, b.rank, b.offset)
        }

        func sameItem(as other: Record) -> Bool {
            index == other.index && keyHigh == other.keyHigh && keyLow == other.keyLow
        }
    }

    /// The fields that identify an entry (`Manifest.Key`), decoded without the rest but for the
    /// paths it names, which `JournalLines` checks.
    private struct KeyFields: JournalLine {
        var index: Int
        var input: String
        var line: Int
        var file: String?
        var thumbnail: String?
        var containerPaths: [String] { [file, thumbnail].compactMap { $0 } }
    }

    let folder: DirectoryHandle
    let names: [String]
    let chunkRecords: Int

    init(folder: DirectoryHandle, names: [String], chunkRecords: Int) {
        self.folder = folder
        self.names = names
        self.chunkRecords = max(2, chunkRecords)
    }

    /// The 16-byte digest of an item's key (input URL and line; the index is kept beside it).
    static func keyDigest(input: String, line: Int) -> (UInt64, UInt64) {
        var bytes = Array(input.utf8)
        bytes.append(0x0A)
        bytes += Array(String(line).utf8)
        let digest = SHA256.hash(bytes)
        var high: UInt64 = 0
        var low: UInt64 = 0
        for byte in digest[0..<8] { high = high << 8 | UInt64(byte) }
        for byte in digest[8..<16] { low = low << 8 | UInt64(byte) }
        return (high, low)
    }

    func write(now: Date) throws(ContainerError) -> Manifest.Finalized {
        var journals: [OpenJournal] = []
        defer { for journal in journals { try? SystemCall.close(journal.fd, path: journal.path) } }
        for name in names {
            guard let fd = try folder.openFileIfPresent(name) else { continue }
            journals.append(OpenJournal(name: name, path: folder.path(of: name), fd: fd))
        }
        var runs = Runs(folder: folder)
        let (lastChunk, warnings) = try spillSorted(journals, into: &runs)
        var merged = try runs.merger(memory: lastChunk)
        var output = try ManifestOutput(in: folder, created: now)
        // One input position's items: (first line's place, last line) per key, put in the order
        // their keys first appeared. Positions hold one item each unless the input changed
        // between runs, so this stays tiny.
        var group: [(first: (UInt32, Int64), last: Record)] = []
        while let record = try merged.next() {
            if let last = group.last, last.last.sameItem(as: record) {
                group[group.count - 1].last = record
                continue
            }
            if let last = group.last, last.last.index != record.index {
                try output.append(group, from: journals)
                group.removeAll(keepingCapacity: true)
            }
            group.append((first: (record.rank, record.offset), last: record))
        }
        try output.append(group, from: journals)
        try output.commit()
        return Manifest.Finalized(count: output.count, statuses: output.statuses, warnings: warnings)
    }

    /// Reads every journal's lines as records (key digest, index, place), spilling each
    /// `chunkRecords` of them sorted into a run on disk; the last chunk, sorted, stays in memory.
    private func spillSorted(_ journals: [OpenJournal], into runs: inout Runs) throws(ContainerError)
        -> (lastChunk: [Record], warnings: [String])
    {
        var warnings: [String] = []
        var chunk: [Record] = []
        chunk.reserveCapacity(min(chunkRecords, 1 << 16))
        for (rank, journal) in journals.enumerated() {
            var lines = try JournalLines<KeyFields>(in: folder, name: journal.name)
            while let line = try lines.next() {
                let digest = Self.keyDigest(input: line.entry.input, line: line.entry.line)
                chunk.append(
                    Record(
                        index: Int64(line.entry.index), keyHigh: digest.0, keyLow: digest.1, rank: UInt32(rank),
                        length: UInt32(line.length), offset: Int64(line.offset)))
                if chunk.count >= chunkRecords {
                    try runs.spill(&chunk)
                }
            }
            warnings += lines.warnings
        }
        chunk.sort()
        return (chunk, warnings)
    }

    /// `manifest.json` as it is written: the header, then entries appended 64 kB at a time,
    /// atomically committed at the end.
    struct ManifestOutput {
        let file: AtomicFile
        private(set) var count = 0
        private(set) var statuses: [ManifestEntry.Status: Int] = [:]
        private var batch: Data
        private let decoder = JSONDecoder()

        init(in folder: DirectoryHandle, created: Date) throws(ContainerError) {
            file = try AtomicFile(in: folder, name: Manifest.fileName)
            batch = Data("{\n  \"schema_version\": \(Manifest.schemaVersion),\n  \"created\": ".utf8)
            ManifestJSON.append(string: ISO8601DateFormatter().string(from: created), to: &batch)
            batch.append(contentsOf: ",\n  \"entries\": [".utf8)
        }

        /// One input position's items, in the order their keys first appeared, each as its
        /// last journal line says.
        mutating func append(_ group: [(first: (UInt32, Int64), last: Record)], from journals: [OpenJournal])
            throws(ContainerError)
        {
            for item in group.sorted(by: { $0.first < $1.first }) {
                let journal = journals[Int(item.last.rank)]
                let line = try journal.read(offset: Int(item.last.offset), length: Int(item.last.length))
                let entry: ManifestEntry
                do { entry = try decoder.decode(ManifestEntry.self, from: line) } catch {
                    throw .encoding(
                        path: journal.path, reason: "a journal line changed while the manifest was written: \(error)")
                }
                statuses[entry.status, default: 0] += 1
                batch.append(contentsOf: (count == 0 ? "\n    " : ",\n    ").utf8)
                batch.append(entry.json.data(indent: 2))
                count += 1
                if batch.count >= 1 << 16 {
                    try file.append(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
        }

        /// Closes the array and the object, and puts the file in place.
        mutating func commit() throws(ContainerError) {
            batch.append(contentsOf: (count == 0 ? "]\n}\n" : "\n  ]\n}\n").utf8)
            try file.append(batch)
            try file.commit()
        }
    }

    /// A journal open for reading lines back by place.
    struct OpenJournal {
        let name: String
        let path: String
        let fd: Int32

        func read(offset: Int, length: Int) throws(ContainerError) -> Data {
            var bytes = [UInt8](repeating: 0, count: length)
            let count = try SystemCall.read(fd, into: &bytes, at: offset, path: path)
            guard count == length else { throw .system(call: "pread", path: path, errno: EIO) }
            return Data(bytes)
        }
    }

    /// Sorted runs of records spilled to unlinked temporaries in the container.
    struct Runs {
        let folder: DirectoryHandle
        private(set) var files: [(fd: Int32, count: Int, path: String)] = []

        init(folder: DirectoryHandle) { self.folder = folder }

        /// Sorts `chunk`, writes it to a new temporary (unlinked at once: nothing is left behind,
        /// even by a kill) and empties it.
        mutating func spill(_ chunk: inout [Record]) throws(ContainerError) {
            chunk.sort()
            let name = AtomicWriter.temporaryName(for: "manifest-merge")
            let path = folder.path(of: name)
            let fd = try folder.openFile(name, .readWrite, [.create, .exclusive], permissions: 0o600)
            try? folder.remove(name)
            files.append((fd, chunk.count, path))
            let failure: ContainerError? = chunk.withUnsafeBytes { raw in
                do throws(ContainerError) { try SystemCall.writeAll(fd, raw, path: path) } catch { return error }
                return nil
            }
            if let failure { throw failure }
            chunk.removeAll(keepingCapacity: true)
        }

        /// A k-way merge of the spilled runs and `memory` (sorted).
        func merger(memory: [Record]) throws(ContainerError) -> Merger {
            var sources = files.map { RunReader(fd: $0.fd, count: $0.count, path: $0.path) }
            sources.append(RunReader(memory: memory))
            return try Merger(sources: sources)
        }
    }

    /// Reads one sorted run: from a file, 1,600 records (64 KB) at a time, or from memory.
    struct RunReader {
        private let fd: Int32
        private let path: String
        private let total: Int
        private var taken = 0
        private var buffer: [Record]
        private var position = 0

        init(fd: Int32, count: Int, path: String) {
            self.fd = fd
            self.path = path
            total = count
            buffer = []
        }

        init(memory: [Record]) {
            fd = -1
            path = ""
            total = memory.count
            buffer = memory
            taken = memory.count
        }

        mutating func next() throws(ContainerError) -> Record? {
            if position < buffer.count {
                defer { position += 1 }
                return buffer[position]
            }
            guard fd >= 0, taken < total else { return nil }
            let want = min(1600, total - taken)
            let stride = MemoryLayout<Record>.stride
            var fresh = [Record](repeating: Record(index: 0, keyHigh: 0, keyLow: 0, rank: 0, length: 0, offset: 0), count: want)
            let offset = taken * stride
            let fd = fd
            let path = path
            let read: Result<Int, ContainerError> = fresh.withUnsafeMutableBytes { raw in
                Result { () throws(ContainerError) in try SystemCall.read(fd, into: raw, at: offset, path: path) }
            }
            guard try read.get() == want * stride else { throw .system(call: "pread", path: path, errno: EIO) }
            buffer = fresh
            position = 1
            taken += want
            return buffer[0]
        }

        /// Closes a file run.
        func close() { if fd >= 0 { try? SystemCall.close(fd, path: path) } }
    }

    /// The smallest head of k runs, repeatedly (a linear scan: k is the number of 10 MB chunks).
    struct Merger {
        private var sources: [RunReader]
        private var heads: [Record?]

        init(sources: [RunReader]) throws(ContainerError) {
            self.sources = sources
            heads = []
            for index in self.sources.indices { heads.append(try self.sources[index].next()) }
        }

        mutating func next() throws(ContainerError) -> Record? {
            var best: Int?
            for (index, head) in heads.enumerated() {
                guard let head else { continue }
                if let current = best, let other = heads[current], !(head < other) { continue }
                best = index
            }
            guard let best, let record = heads[best] else {
                for source in sources { source.close() }
                return nil
            }
            heads[best] = try sources[best].next()
            return record
        }
    }
}
