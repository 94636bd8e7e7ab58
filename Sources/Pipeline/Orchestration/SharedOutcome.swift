import Foundation

/// The outcome of the first item naming a URL, awaited by later items naming the same URL, so
/// identical URLs are downloaded once and every entry points to the same file.
final class SharedOutcome: @unchecked Sendable {
    /// The first item's line, for the duplicates' warning.
    let firstLine: Int
    let firstSource: String
    private let lock = NSLock()
    private var value: ManifestEntry??
    private var waiters: [CheckedContinuation<ManifestEntry?, Never>] = []

    init(firstSource: String, firstLine: Int) {
        self.firstSource = firstSource
        self.firstLine = firstLine
    }

    /// The first item's entry, or nil when it was abandoned (interrupted).
    func wait() async -> ManifestEntry? {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let value {
                lock.unlock()
                continuation.resume(returning: value)
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }

    func fulfil(_ entry: ManifestEntry?) {
        lock.lock()
        guard value == nil else {
            lock.unlock()
            return
        }
        value = .some(entry)
        let pending = waiters
        waiters = []
        lock.unlock()
        for waiter in pending { waiter.resume(returning: entry) }
    }
}

/// URL → the first outcome for it in this run, so identical URLs are downloaded once: while the
/// first item is in flight, a `SharedOutcome` later items wait on; once its entry is in the
/// journal, only where its line is (`ManifestJournal.Appended`), and later items read it back.
/// Used by the run loop only (one task).
///
/// - Complexity: the items in flight are a dictionary keyed by URL (at most `maxInFlight`, plus
///   the few abandoned). A recorded URL is a fixed 26 bytes in `RecordedURLs` (a 12-byte digest
///   of the URL, where its line is, its line number and input), never the URL string: about
///   45 bytes per distinct URL with the hash table's slack, so a million distinct URLs hold
///   ~45 MB here. That is the only per-item state a run keeps; everything else is bounded by the
///   items in flight.
struct DedupeTable {
    enum Slot {
        case pending(SharedOutcome)
        case recorded(ManifestJournal.Appended, firstLine: Int, source: Int32)
    }

    private var inFlight: [String: SharedOutcome] = [:]
    private var recordedURLs = RecordedURLs()
    /// Input names, interned: a run has few.
    private var sources: [String] = []
    private var sourceIndex: [String: Int32] = [:]

    subscript(url: String) -> Slot? {
        if let shared = inFlight[url] { return .pending(shared) }
        return recordedURLs[url].map { .recorded($0.line, firstLine: $0.firstLine, source: $0.source) }
    }

    mutating func pending(_ url: String, _ shared: SharedOutcome) { inFlight[url] = shared }

    /// The first item for `entry.input` is in the journal at `line`: keep only that.
    mutating func recorded(_ entry: ManifestEntry, at line: ManifestJournal.Appended) {
        guard let shared = inFlight[entry.input], shared.firstLine == entry.line else { return }
        let index: Int32
        if let known = sourceIndex[shared.firstSource] {
            index = known
        } else {
            index = Int32(sources.count)
            sources.append(shared.firstSource)
            sourceIndex[shared.firstSource] = index
        }
        // A line the compact form cannot hold (past 1 TB, over 16 MB, input 65,535 and up) stays
        // in flight: later items wait on the outcome, which is already there.
        if recordedURLs.insert(entry.input, line: line, firstLine: shared.firstLine, source: index) {
            inFlight[entry.input] = nil
        }
    }

    func source(_ index: Int32) -> String { sources[Int(index)] }
}

/// A hash set of URLs with where each one's first journal line is, in fixed bytes per URL:
/// 256 open-addressing tables chosen by the digest's first byte (so growing one copies 1/256 of
/// the whole, never the whole), each slot a 12-byte digest of the URL (SHA-256's bytes 1-12),
/// the line's offset and length packed in 8 bytes, its line number (4) and input (2).
struct RecordedURLs {
    struct Found {
        var line: ManifestJournal.Appended
        var firstLine: Int
        var source: Int32
    }

    private var tables = [Table](repeating: Table(), count: 256)
    private(set) var count = 0

    /// One open-addressing table, linear probing; `lines[i] == 0` marks a free slot (input
    /// lines count from 1).
    struct Table {
        var high: [UInt64] = []
        var low: [UInt32] = []
        var spans: [UInt64] = []
        var lines: [UInt32] = []
        var sources: [UInt16] = []
        var used = 0

        var capacity: Int { lines.count }

        func find(_ high: UInt64, _ low: UInt32) -> Int? {
            guard capacity > 0 else { return nil }
            var slot = Int(truncatingIfNeeded: high) & (capacity - 1)
            while lines[slot] != 0 {
                if self.high[slot] == high && self.low[slot] == low { return slot }
                slot = (slot + 1) & (capacity - 1)
            }
            return nil
        }

        mutating func put(_ high: UInt64, _ low: UInt32, span: UInt64, line: UInt32, source: UInt16) {
            if (used + 1) * 4 > capacity * 3 { grow() }
            var slot = Int(truncatingIfNeeded: high) & (capacity - 1)
            while lines[slot] != 0 {
                if self.high[slot] == high && self.low[slot] == low { return }
                slot = (slot + 1) & (capacity - 1)
            }
            self.high[slot] = high
            self.low[slot] = low
            spans[slot] = span
            lines[slot] = line
            sources[slot] = source
            used += 1
        }

        private mutating func grow() {
            let old = self
            let size = max(16, capacity * 2)
            high = [UInt64](repeating: 0, count: size)
            low = [UInt32](repeating: 0, count: size)
            spans = [UInt64](repeating: 0, count: size)
            lines = [UInt32](repeating: 0, count: size)
            sources = [UInt16](repeating: 0, count: size)
            used = 0
            for slot in 0..<old.capacity where old.lines[slot] != 0 {
                put(old.high[slot], old.low[slot], span: old.spans[slot], line: old.lines[slot], source: old.sources[slot])
            }
        }
    }

    /// Slots in all tables, used or free (each `bytesPerSlot`).
    var slotCapacity: Int { tables.reduce(0) { $0 + $1.capacity } }

    /// Bytes per slot, whatever the URL.
    static let bytesPerSlot = 8 + 4 + 8 + 4 + 2

    private static func digest(_ url: String) -> (table: Int, high: UInt64, low: UInt32) {
        let bytes = SHA256.hash(Array(url.utf8))
        var high: UInt64 = 0
        var low: UInt32 = 0
        for byte in bytes[1..<9] { high = high << 8 | UInt64(byte) }
        for byte in bytes[9..<13] { low = low << 8 | UInt32(byte) }
        return (Int(bytes[0]), high, low)
    }

    subscript(url: String) -> Found? {
        let key = Self.digest(url)
        let table = tables[key.table]
        guard let slot = table.find(key.high, key.low) else { return nil }
        let span = table.spans[slot]
        return Found(
            line: ManifestJournal.Appended(offset: Int(span >> 24), length: Int(span & 0xFF_FFFF), recreated: false),
            firstLine: Int(table.lines[slot]), source: Int32(table.sources[slot]))
    }

    /// Adds `url`; false when its numbers do not fit the slot (the caller keeps it otherwise).
    mutating func insert(_ url: String, line: ManifestJournal.Appended, firstLine: Int, source: Int32) -> Bool {
        guard line.offset >= 0, line.offset < 1 << 40, line.length >= 0, line.length < 1 << 24, firstLine >= 1,
            firstLine <= Int(UInt32.max), source >= 0, source <= Int32(UInt16.max)
        else { return false }
        let key = Self.digest(url)
        let span = UInt64(line.offset) << 24 | UInt64(line.length)
        tables[key.table].put(key.high, key.low, span: span, line: UInt32(firstLine), source: UInt16(source))
        count += 1
        return true
    }
}
