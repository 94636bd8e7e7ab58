import Foundation
import MediaTypes
import PushAttach
import SystemSupport

/// What a `--resume` run may skip, kept compact: fixed bytes per prepared entry, never the
/// entries (`Manifest.load` keeps each whole, ~3 KB).
///
///     let index = try ResumeIndex(in: container, journals: ["manifest.jsonl"])
///     if index.isPrepared(index: 7, input: url, line: 8) { skip }
///     if let prior = try index.prepared(url: url) { reuse its file }
///
/// Built by reading the journals line by line (`JournalLines`): a prepared entry whose file (and
/// thumbnail) is on disk as recorded (`Manifest.FileCheck.size`) adds
/// - its index with an 8-byte digest of its key (input URL and line): 16 bytes, sorted;
/// - a 7-byte digest of its URL with its journal (1 byte), and where its line is (offset 40
///   bits, length 24): 16 bytes, sorted, so the entry is read back from the journal when another
///   item names the same URL (and its URL compared: a digest collision is a miss, never a
///   wrong file);
/// - an 8-byte digest of each file it names (1 or 2), sorted, for removing files no entry names
///   (unsharded runs only).
///
/// An item counts as prepared when any of its lines is prepared with its file in place. (A
/// later line for the same item exists only when a resume redid it, which it does only when
/// the earlier one was not prepared or its file had gone.) The arrays are reserved from a first
/// pass counting lines, so they never grow by doubling; untouched capacity costs no memory.
package final class ResumeIndex: @unchecked Sendable {
    struct KeyDigest: Comparable {
        var index: Int64
        var high: UInt64
        static func < (a: KeyDigest, b: KeyDigest) -> Bool { (a.index, a.high) < (b.index, b.high) }
    }

    /// `key`: the URL's digest (56 bits) << 8 | the journal's rank; `span`: offset << 24 | length.
    struct URLSpan: Comparable {
        var key: UInt64
        var span: UInt64
        static func < (a: URLSpan, b: URLSpan) -> Bool { a.key < b.key }
    }

    private var keys: [KeyDigest] = []
    private var urls: [URLSpan] = []
    private var files: [UInt64] = []
    private var journals: [JournalMerge.OpenJournal] = []
    /// Journal lines skipped and prepared entries whose files are missing or changed.
    package private(set) var warnings: [String] = []

    /// Prepared items found (distinct keys).
    package var preparedCount: Int { keys.count }

    /// The bytes the index holds for its entries (counts, not the reserved capacity).
    package var storedBytes: Int {
        keys.count * MemoryLayout<KeyDigest>.stride + urls.count * MemoryLayout<URLSpan>.stride
            + files.count * MemoryLayout<UInt64>.stride
    }

    /// Bytes held per prepared entry, whatever the entry holds (for the memory tests).
    package static let bytesPerEntry =
        MemoryLayout<KeyDigest>.stride + MemoryLayout<URLSpan>.stride + 2 * MemoryLayout<UInt64>.stride

    /// Journals one index can read (the rank is one byte of `URLSpan.key`).
    static let maxJournals = 256

    /// Reads `names` (journal files in `dir`; missing ones are empty). A link at a journal is
    /// refused (`ContainerError.unsafeEntry`).
    package convenience init(dir: URL, journals names: [String]) throws(ContainerError) {
        try self.init(in: DirectoryHandle(opening: dir.path), journals: names)
    }

    init(in folder: DirectoryHandle, journals names: [String], keepFiles: Bool = true) throws(ContainerError) {
        guard names.count <= Self.maxJournals else {
            throw .mismatched(
                path: folder.path, reason: "--resume reads at most \(Self.maxJournals) journals, not \(names.count)")
        }
        for name in names {
            guard let fd = try folder.openFileIfPresent(name) else { continue }
            journals.append(JournalMerge.OpenJournal(name: name, path: folder.path(of: name), fd: fd))
        }
        var lines = 0
        for journal in journals { lines += try Self.countLines(journal) }
        keys.reserveCapacity(lines)
        urls.reserveCapacity(lines)
        if keepFiles { files.reserveCapacity(2 * lines) }
        for (rank, journal) in journals.enumerated() {
            var lines = try JournalLines<ManifestEntry>(in: folder, name: journal.name)
            while let line = try lines.next() {
                let entry = line.entry
                guard entry.status == .prepared else { continue }
                if let problem = Manifest.fileProblem(entry, in: folder, verify: .size) {
                    warnings.append("\(entry.input): \(problem); it will be prepared again")
                    continue
                }
                let key = JournalMerge.keyDigest(input: entry.input, line: entry.line)
                keys.append(KeyDigest(index: Int64(entry.index), high: key.0))
                // A line past 1 TB or over 16 MB is not kept for reuse: its item is still
                // skipped, and another item naming its URL is prepared again.
                if line.offset < 1 << 40, line.length < 1 << 24 {
                    urls.append(
                        URLSpan(
                            key: Self.digest(entry.input).0 & ~0xFF | UInt64(rank),
                            span: UInt64(line.offset) << 24 | UInt64(line.length)))
                }
                if keepFiles {
                    for file in [entry.file, entry.thumbnail].compactMap({ $0 }) { files.append(Self.digest(file).0) }
                }
            }
            warnings += lines.warnings
        }
        keys.sort()
        Self.removeDuplicates(&keys)
        urls.sort()
        files.sort()
    }

    deinit { for journal in journals { try? SystemCall.close(journal.fd, path: journal.path) } }

    /// True when the item at input position `index`, from `input` at `line`, was prepared.
    /// `input` is compared as the journal holds it, without credentials.
    package func isPrepared(index: Int, input: String, line: Int) -> Bool {
        let key = JournalMerge.keyDigest(input: DisplayText.withoutCredentials(input), line: line)
        let probe = KeyDigest(index: Int64(index), high: key.0)
        let at = Self.lowerBound(keys, probe)
        return at < keys.count && keys[at] == probe
    }

    /// A prepared entry for `url` (some item naming it), read back from its journal; nil when
    /// none was prepared.
    package func prepared(url given: String) throws(ContainerError) -> ManifestEntry? {
        let url = DisplayText.withoutCredentials(given)
        let digest = Self.digest(url).0 & ~0xFF
        var at = Self.lowerBound(urls, URLSpan(key: digest, span: 0))
        // Equal digests sit together: the first whose entry names `url` itself.
        while at < urls.count, urls[at].key & ~0xFF == digest {
            let found = urls[at]
            at += 1
            let journal = journals[Int(found.key & 0xFF)]
            let bytes = try journal.read(offset: Int(found.span >> 24), length: Int(found.span & 0xFF_FFFF))
            let entry: ManifestEntry
            do { entry = try JSONDecoder().decode(ManifestEntry.self, from: bytes) } catch {
                throw .encoding(path: journal.path, reason: "a journal line changed while it was read: \(error)")
            }
            // Checked when the index was built; checked again, as the line is read back.
            if entry.input == url, entry.untrustedPath == nil { return entry }
        }
        return nil
    }

    /// True when a prepared entry names the file `relative` (`Images/…`). An 8-byte digest: a
    /// collision keeps a stray file, never removes a named one.
    package func isReferenced(_ relative: String) -> Bool {
        let probe = Self.digest(relative).0
        let at = Self.lowerBound(files, probe)
        return at < files.count && files[at] == probe
    }

    static func digest(_ text: String) -> (UInt64, UInt64) {
        let digest = SHA256.hash(Array(text.utf8))
        var high: UInt64 = 0
        var low: UInt64 = 0
        for byte in digest[0..<8] { high = high << 8 | UInt64(byte) }
        for byte in digest[8..<16] { low = low << 8 | UInt64(byte) }
        return (high, low)
    }

    private static func lowerBound<T: Comparable>(_ array: [T], _ value: T) -> Int {
        var low = 0
        var high = array.count
        while low < high {
            let middle = (low + high) / 2
            if array[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Keeps the first of each run of equal elements, in place (no copy of the array).
    private static func removeDuplicates<T: Equatable>(_ array: inout [T]) {
        var kept = 0
        for index in array.indices where kept == 0 || array[kept - 1] != array[index] {
            array[kept] = array[index]
            kept += 1
        }
        array.removeLast(array.count - kept)
    }

    /// Newlines in a journal, read in 64 KB pieces: an upper bound on its entries.
    private static func countLines(_ journal: JournalMerge.OpenJournal) throws(ContainerError) -> Int {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset = 0
        var lines = 0
        while true {
            let count = try SystemCall.read(journal.fd, into: &buffer, at: offset, path: journal.path)
            if count == 0 { break }
            for byte in buffer[0..<count] where byte == 0x0A { lines += 1 }
            offset += count
        }
        return lines + 1
    }
}
