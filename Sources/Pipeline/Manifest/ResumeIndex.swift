import Foundation
import MediaTypes

/// What a `--resume` run may skip, kept compact: fixed bytes per prepared entry, never the
/// entries (`Manifest.load` keeps each whole, ~3 KB).
///
///     let index = try ResumeIndex(in: container, journals: ["manifest.jsonl"])
///     if index.isPrepared(index: 7, input: url, line: 8) { skip }
///     if let prior = try index.prepared(url: url) { reuse its file }
///
/// Built by reading the journals line by line (`LineReader`): a prepared entry whose file (and
/// thumbnail) is on disk as recorded (`Manifest.Verification.size`) adds
/// - its key's 16-byte digest (input URL and line) with its index: 24 bytes, sorted;
/// - its URL's 16-byte digest and where its line is (journal, offset, length): 32 bytes, sorted,
///   so the entry is read back from the journal when another item names the same URL;
/// - an 8-byte digest of each file it names, sorted, for removing files no entry names.
///
/// An item counts as prepared when any of its lines is prepared with its file in place. (A
/// later line for the same item exists only when a resume redid it, which it does only when
/// the earlier one was not prepared or its file had gone.) The arrays are reserved from a first
/// pass counting lines, so they never grow by doubling; untouched capacity costs no memory.
package final class ResumeIndex: @unchecked Sendable {
    struct KeyDigest: Comparable {
        var index: Int64
        var high: UInt64
        var low: UInt64
        static func < (a: KeyDigest, b: KeyDigest) -> Bool { (a.index, a.high, a.low) < (b.index, b.high, b.low) }
    }

    struct URLSpan: Comparable {
        var high: UInt64
        var low: UInt64
        var journal: UInt32
        var length: UInt32
        var offset: Int64
        static func < (a: URLSpan, b: URLSpan) -> Bool { (a.high, a.low) < (b.high, b.low) }
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

    /// Reads `names` (journal files in `dir`; missing ones are empty). A link at a journal is
    /// refused (`ContainerError.unsafeEntry`).
    package convenience init(dir: URL, journals names: [String]) throws(ContainerError) {
        try self.init(in: DirectoryHandle(opening: dir.path), journals: names)
    }

    init(in folder: DirectoryHandle, journals names: [String]) throws(ContainerError) {
        for name in names {
            guard let fd = try folder.openFileIfPresent(name) else { continue }
            journals.append(JournalMerge.OpenJournal(name: name, path: folder.path(of: name), fd: fd))
        }
        var lines = 0
        for journal in journals { lines += try Self.countLines(journal) }
        keys.reserveCapacity(lines)
        urls.reserveCapacity(lines)
        files.reserveCapacity(2 * lines)
        let decoder = JSONDecoder()
        for (rank, journal) in journals.enumerated() {
            let scan = try folder.openFile(journal.name, .readOnly)
            let reader = LineReader(descriptor: scan, name: journal.path, maxLineBytes: 4 * 1024 * 1024)
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
                case .text(let bytes):
                    offset += bytes.count + 1
                    if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { continue }
                    guard let entry = try? decoder.decode(ManifestEntry.self, from: Data(bytes)) else {
                        bad.append((lineNumber, "not a manifest entry"))
                        continue
                    }
                    guard entry.status == .prepared else { continue }
                    if let problem = Manifest.fileProblem(entry, in: folder, verify: .size) {
                        warnings.append("\(entry.input): \(problem); it will be prepared again")
                        continue
                    }
                    let key = JournalMerge.keyDigest(input: entry.input, line: entry.line)
                    keys.append(KeyDigest(index: Int64(entry.index), high: key.0, low: key.1))
                    let url = Self.digest(entry.input)
                    urls.append(
                        URLSpan(
                            high: url.0, low: url.1, journal: UInt32(rank), length: UInt32(bytes.count),
                            offset: Int64(start)))
                    for file in [entry.file, entry.thumbnail].compactMap({ $0 }) { files.append(Self.digest(file).0) }
                }
            }
            warnings += bad.map { item in
                item.line == lineNumber
                    ? "\(journal.name):\(item.line): truncated last line skipped (the previous run was interrupted)"
                    : "\(journal.name):\(item.line): \(item.reason), skipped"
            }
        }
        keys.sort()
        Self.removeDuplicates(&keys)
        urls.sort()
        files.sort()
    }

    deinit { for journal in journals { try? SystemCall.close(journal.fd, path: journal.path) } }

    /// True when the item at input position `index`, from `input` at `line`, was prepared.
    package func isPrepared(index: Int, input: String, line: Int) -> Bool {
        let key = JournalMerge.keyDigest(input: input, line: line)
        let probe = KeyDigest(index: Int64(index), high: key.0, low: key.1)
        let at = Self.lowerBound(keys, probe)
        return at < keys.count && keys[at] == probe
    }

    /// A prepared entry for `url` (some item naming it), read back from its journal; nil when
    /// none was prepared.
    package func prepared(url: String) throws(ContainerError) -> ManifestEntry? {
        let digest = Self.digest(url)
        let probe = URLSpan(high: digest.0, low: digest.1, journal: 0, length: 0, offset: 0)
        let at = Self.lowerBound(urls, probe)
        guard at < urls.count, urls[at].high == digest.0, urls[at].low == digest.1 else { return nil }
        let span = urls[at]
        let journal = journals[Int(span.journal)]
        let bytes = try journal.read(offset: Int(span.offset), length: Int(span.length))
        do { return try JSONDecoder().decode(ManifestEntry.self, from: bytes) } catch {
            throw .encoding(path: journal.path, reason: "a journal line changed while it was read: \(error)")
        }
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
