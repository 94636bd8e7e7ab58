import Foundation
import PushAttach
import SystemSupport

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
///   the few abandoned). A recorded URL is a fixed 24-byte slot in `RecordedURLs` (an 80-bit
///   digest of the URL, where its line is, its line number and input), never the URL string:
///   30–45 bytes per distinct URL with the hash table's slack, so a million distinct URLs hold
///   at most ~45 MB here. That is the only per-item state a run keeps; everything else is bounded by the
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

/// A hash set of URLs with where each one's first journal line is, in 24 fixed bytes per slot:
/// 16 open-addressing tables chosen by the digest's first byte (so growing one copies 1/16 of
/// the whole), each slot three words: an 80-bit digest of the URL (SHA-256's bytes 1-10), the
/// input (16 bits) and line number (32 bits, 0 marks a free slot: lines count from 1), and the
/// line's offset (40 bits) and length (24 bits) in the journal.
///
/// A table grows by half when 4/5 full (never fuller, never under 8/15 after growing), so a
/// slot costs 30–45 bytes per URL with the slack; one flat array per table, which past a few
/// hundred thousand URLs is large enough for the allocator to map and unmap on its own, so
/// growth leaves no holes behind.
struct RecordedURLs {
    struct Found {
        var line: ManifestJournal.Appended
        var firstLine: Int
        var source: Int32
    }

    private var tables = [Table](repeating: Table(), count: 16)
    private(set) var count = 0

    /// One open-addressing table, linear probing, `capacity` not a power of two: the home slot
    /// is the digest scaled to the capacity (`high * capacity >> 64`).
    struct Table {
        var words: [UInt64] = []
        var used = 0

        var capacity: Int { words.count / 3 }

        private func home(_ high: UInt64) -> Int {
            Int(truncatingIfNeeded: high.multipliedFullWidth(by: UInt64(capacity)).high)
        }

        func find(_ high: UInt64, _ tag: UInt64) -> Int? {
            guard capacity > 0 else { return nil }
            var slot = home(high)
            while words[3 * slot + 1] & 0xFFFF_FFFF != 0 {
                if words[3 * slot] == high && words[3 * slot + 1] >> 48 == tag { return slot }
                slot = slot + 1 == capacity ? 0 : slot + 1
            }
            return nil
        }

        /// `packed`: tag << 48 | source << 32 | line (line ≥ 1).
        mutating func put(_ high: UInt64, packed: UInt64, span: UInt64) {
            if (used + 1) * 5 > capacity * 4 { grow() }
            var slot = home(high)
            while words[3 * slot + 1] & 0xFFFF_FFFF != 0 {
                if words[3 * slot] == high && words[3 * slot + 1] >> 48 == packed >> 48 { return }
                slot = slot + 1 == capacity ? 0 : slot + 1
            }
            words[3 * slot] = high
            words[3 * slot + 1] = packed
            words[3 * slot + 2] = span
            used += 1
        }

        private mutating func grow() {
            let old = words
            words = [UInt64](repeating: 0, count: 3 * max(64, capacity + capacity / 2))
            used = 0
            for slot in 0..<old.count / 3 where old[3 * slot + 1] & 0xFFFF_FFFF != 0 {
                put(old[3 * slot], packed: old[3 * slot + 1], span: old[3 * slot + 2])
            }
        }
    }

    /// Slots in all tables, used or free (each `bytesPerSlot`).
    var slotCapacity: Int { tables.reduce(0) { $0 + $1.capacity } }

    /// Bytes per slot, whatever the URL.
    static let bytesPerSlot = 3 * MemoryLayout<UInt64>.size

    /// The table (digest byte 0), the next 8 bytes and the 2 after, of SHA-256 of the URL.
    private static func digest(_ url: String) -> (table: Int, high: UInt64, tag: UInt64) {
        let bytes = SHA256.hash(Array(url.utf8))
        var high: UInt64 = 0
        for byte in bytes[1..<9] { high = high << 8 | UInt64(byte) }
        let tag = UInt64(bytes[9]) << 8 | UInt64(bytes[10])
        return (Int(bytes[0] & 15), high, tag)
    }

    subscript(url: String) -> Found? {
        let key = Self.digest(url)
        let table = tables[key.table]
        guard let slot = table.find(key.high, key.tag) else { return nil }
        let packed = table.words[3 * slot + 1]
        let span = table.words[3 * slot + 2]
        return Found(
            line: ManifestJournal.Appended(offset: Int(span >> 24), length: Int(span & 0xFF_FFFF), recreated: false),
            firstLine: Int(packed & 0xFFFF_FFFF), source: Int32(packed >> 32 & 0xFFFF))
    }

    /// Adds `url`; false when its numbers do not fit the slot (the caller keeps it otherwise).
    mutating func insert(_ url: String, line: ManifestJournal.Appended, firstLine: Int, source: Int32) -> Bool {
        guard line.offset >= 0, line.offset < 1 << 40, line.length >= 0, line.length < 1 << 24, firstLine >= 1,
            firstLine <= Int(UInt32.max), source >= 0, source <= Int32(UInt16.max)
        else { return false }
        let key = Self.digest(url)
        let span = UInt64(line.offset) << 24 | UInt64(line.length)
        let packed = key.tag << 48 | UInt64(source) << 32 | UInt64(firstLine)
        let before = tables[key.table].used
        tables[key.table].put(key.high, packed: packed, span: span)
        count += tables[key.table].used - before
        return true
    }
}
