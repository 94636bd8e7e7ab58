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
