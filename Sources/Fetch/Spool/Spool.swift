import Foundation
import SystemSupport

/// A hash computed while a body streams to its spool file, so a large body is never read back
/// to be hashed. PushAttach gives its SHA-256 (`SpoolSHA256`).
///
///     struct Count: BodyDigest {
///         var n = 0
///         mutating func update(_ bytes: UnsafeRawBufferPointer) { n += bytes.count }
///         mutating func finish() -> String { "\(n)" }
///     }
package protocol BodyDigest {
    /// The next bytes of the body, in order.
    mutating func update(_ bytes: UnsafeRawBufferPointer)
    /// The digest as text (lowercase hex for a hash), after the last `update`.
    mutating func finish() -> String
}

/// Where bodies over `FetchPolicy.spoolThreshold` go instead of memory, and the disk budget
/// they share (`budget`, bytes).
///
///     var policy = FetchPolicy()
///     policy.spool = try Spool(directory: URL(fileURLWithPath: "/srv/out/.spool"), budget: 2_000_000_000)
///     let response = try await HTTPClient(policy: policy).fetch(url)
///     if case .file(let file) = response.content { … }   // unlinked when `file` goes
///
/// - Budget: a transfer that starts to spool reserves its byte cap (the most it may write;
///   what it did not use is given back when it completes) before it writes a byte. When the
///   reservations in flight leave too little, it waits, first come first served, until
///   enough is released or its attempt's deadline passes (then `FetchError.spoolBudgetExhausted`).
///   A body whose cap is over the whole budget waits until nothing else is spooled and then
///   runs alone, so nothing waits for ever. A reservation is released when its file is
///   removed or moved out of the spool (`SpooledFile`).
/// - Names: `body-<pid>-<n>-<random>`, created with `O_EXCL`. Every file is unlinked when its
///   transfer fails or its `SpooledFile` goes; what a killed process left is the owner's to
///   clear when it next starts (PushAttach's `Container` empties the folder when it opens).
package final class Spool: @unchecked Sendable {
    /// The most spooled bytes reserved at once.
    package let budget: Int
    /// The folder, for messages.
    package let path: String
    /// Hashes each spooled body as it streams, when set (`SpooledFile.digest`). Given the
    /// body's first bytes (at least the spool threshold's worth, or all of a body cut short), it
    /// may answer nil: a body whose hash will not be needed (an image the engine re-encodes) is
    /// not hashed.
    package let makeDigest: (@Sendable (_ firstBytes: UnsafeRawBufferPointer) -> (any BodyDigest)?)?
    /// The folder, open (owned).
    let directory: Int32

    private let condition = NSCondition()
    private var reserved = 0
    private var nextTicket: UInt64 = 0
    private var queue: [UInt64] = []
    private var fileCounter: UInt64 = 0

    /// Opens the folder at `directory`, which must exist.
    package convenience init(
        directory: URL, budget: Int = 2_000_000_000, makeDigest: (@Sendable (UnsafeRawBufferPointer) -> (any BodyDigest)?)? = nil
    ) throws(SpoolFailure) {
        let path = directory.path
        let fd = try SpoolFailure.calling(path) { () throws(ContainerError) in try SystemCall.open(path, .readOnly, .directory) }
        self.init(owning: fd, path: path, budget: budget, makeDigest: makeDigest)
    }

    /// The folder open as `descriptor` (duplicated: the caller keeps its own).
    package convenience init(
        descriptor: Int32, path: String, budget: Int, makeDigest: (@Sendable (UnsafeRawBufferPointer) -> (any BodyDigest)?)? = nil
    ) throws(SpoolFailure) {
        let fd = try SpoolFailure.calling(path) { () throws(ContainerError) in try SystemCall.duplicate(descriptor, path: path) }
        self.init(owning: fd, path: path, budget: budget, makeDigest: makeDigest)
    }

    private init(owning fd: Int32, path: String, budget: Int, makeDigest: (@Sendable (UnsafeRawBufferPointer) -> (any BodyDigest)?)?) {
        directory = fd
        self.path = path
        self.budget = max(1, budget)
        self.makeDigest = makeDigest
    }

    deinit { try? SystemCall.close(directory, path: path) }

    /// Bytes reserved by spooled bodies now.
    package var reservedBytes: Int { condition.withLock { reserved } }

    /// The folder's path joined with `name`, for messages.
    func path(of name: String) -> String { path + "/" + name }

    /// A name no other file of this process or another has (`O_EXCL` checks it).
    func uniqueName() -> String {
        let n = condition.withLock {
            fileCounter += 1
            return fileCounter
        }
        return "body-\(SystemCall.processID)-\(n)-\(String(UInt32.random(in: .min ... .max), radix: 16))"
    }

    /// Reserves `bytes` (at most `budget`), waiting in line while the reservations in flight
    /// leave too little. Nil when `deadline` passes or `isCancelled` turns true first (`wake()`
    /// makes a waiter look again). Blocks the calling thread: a transfer thread.
    func reserve(_ bytes: Int, until deadline: ContinuousClock.Instant, isCancelled: () -> Bool)
        -> SpoolReservation?
    {
        let weight = min(max(0, bytes), budget)
        condition.lock()
        defer { condition.unlock() }
        let ticket = nextTicket
        nextTicket += 1
        queue.append(ticket)
        while !(queue.first == ticket && reserved + weight <= budget) {
            let left = deadline - ContinuousClock.now
            if isCancelled() || left <= .zero {
                queue.removeAll { $0 == ticket }
                condition.broadcast()
                return nil
            }
            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            _ = condition.wait(until: Date().addingTimeInterval(seconds))
        }
        queue.removeFirst()
        reserved += weight
        condition.broadcast()
        return SpoolReservation(spool: self, bytes: weight)
    }

    /// Wakes every waiting `reserve` so it checks its cancellation.
    func wake() { condition.withLock { condition.broadcast() } }

    /// Gives `bytes` of a reservation back.
    fileprivate func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        condition.withLock {
            reserved -= bytes
            condition.broadcast()
        }
    }
}

/// Bytes of a `Spool`'s budget held by one body; given back once, by `release()` or when it
/// goes.
final class SpoolReservation: @unchecked Sendable {
    private let spool: Spool
    private let lock = NSLock()
    private var bytes: Int

    fileprivate init(spool: Spool, bytes: Int) {
        self.spool = spool
        self.bytes = bytes
    }

    deinit { release() }

    /// Keeps only `size` bytes (what the body came to), giving the rest back.
    func shrink(to size: Int) {
        let freed: Int = lock.withLock {
            let keep = min(bytes, max(0, size))
            defer { bytes = keep }
            return bytes - keep
        }
        spool.release(freed)
    }

    func release() {
        let freed: Int = lock.withLock {
            defer { bytes = 0 }
            return bytes
        }
        spool.release(freed)
    }
}
