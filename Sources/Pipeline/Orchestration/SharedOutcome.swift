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
/// - Complexity: memory per distinct URL is its key (the URL string, ~40–100 bytes on the heap
///   plus 16 inline) and a ~40-byte slot, plus the dictionary's slack: about 150 bytes, so a
///   run of 100,000 distinct URLs holds ~15 MB here. That is the only per-item state a run
///   keeps; everything else is bounded by the items in flight.
struct DedupeTable {
    enum Slot {
        case pending(SharedOutcome)
        case recorded(ManifestJournal.Appended, firstLine: Int, source: Int32)
    }

    private var slots: [String: Slot] = [:]
    /// Input names, interned: a run has few.
    private var sources: [String] = []
    private var sourceIndex: [String: Int32] = [:]

    subscript(url: String) -> Slot? { slots[url] }

    mutating func pending(_ url: String, _ shared: SharedOutcome) { slots[url] = .pending(shared) }

    /// The first item for `entry.input` is in the journal at `line`: keep only that.
    mutating func recorded(_ entry: ManifestEntry, at line: ManifestJournal.Appended) {
        guard case .pending(let shared) = slots[entry.input], shared.firstLine == entry.line else { return }
        let index: Int32
        if let known = sourceIndex[shared.firstSource] {
            index = known
        } else {
            index = Int32(sources.count)
            sources.append(shared.firstSource)
            sourceIndex[shared.firstSource] = index
        }
        slots[entry.input] = .recorded(line, firstLine: shared.firstLine, source: index)
    }

    func source(_ index: Int32) -> String { sources[Int(index)] }
}
