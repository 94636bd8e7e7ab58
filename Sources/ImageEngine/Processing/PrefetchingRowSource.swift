import Foundation
import ImageCodecs

/// An `ImageRowSource` that decodes ahead: a producer thread of its own reads the wrapped
/// source in blocks of rows into a small fixed ring, while the consumer (the resizer) copies
/// rows out of the ring, so decode and resize of one large image run on two cores.
///
///     try ImageCodecs.withRows(data, format: .png) { inner in
///         let rows = PrefetchingRowSource(inner)
///         defer { rows.finish() }          // always: stops and joins the producer
///         return try resizer.resize(rows, to: size, orientation: .up)
///     }
///
/// - The wrapped source is touched only by the producer thread once it has started: its size,
///   layout, ICC profile, notes and working memory are read here, before the start; its warnings,
///   damage (and profile again) on the producer thread after its last row, and handed over.
/// - Rows come out exactly as the wrapped source hands them out, in order. The producer reads
///   them one at a time, as `RowFeed` does, so an error of the wrapped source reaches the
///   consumer after exactly the rows that were read before it (a `readRows` that got some rows
///   returns those, and the next call throws).
/// - Memory is bounded: `blockCount` blocks of `blockRows` rows (3 × 32 by default), counted in
///   `workingMemory`. The producer waits when the ring is full, the consumer when it is empty.
/// - `finish()` must be called before the `ImageCodecs.withRows` closure returns (the wrapped
///   source reads the encoded bytes in place): it stops the producer at its next block and
///   waits until the thread has left the wrapped source. `deinit` calls it too, as a safety net.
///
/// The producer is a Foundation `Thread`, not a task of the cooperative pool, whose threads
/// must not block. Like every source, an instance is used by one consumer thread.
final class PrefetchingRowSource: ImageRowSource, @unchecked Sendable {
    let width: Int
    let height: Int
    let layout: PixelBuffer.Layout
    let sourceWidth: Int
    let sourceHeight: Int
    let blockRows: Int
    let blockCount: Int
    let workingMemory: Int
    /// The wrapped source's colour notes, fixed once it is open.
    let notes: [String]
    private(set) var rowsRead = 0

    private let inner: any ImageRowSource
    private let rowBytes: Int
    private let ring: UnsafeMutablePointer<UInt8>

    // Shared state, under `condition`.
    private let condition = NSCondition()
    /// Blocks the producer has filled, and the consumer has released.
    private var filled = 0
    private var released = 0
    /// Rows in each slot's block.
    private var slotRows: [Int]
    /// The producer has read its last block (the end, or `failure`).
    private var ended = false
    private var failure: CodecError?
    private var stopping = false
    private var exited = false
    private var finalICC: [UInt8]?
    private var finalWarnings: [String]
    private var finalDamage: [String]

    // Consumer state: the block being copied out (absolute index `released`) and the row in it.
    private var holding = false
    private var offset = 0
    private var rowsInBlock = 0

    /// Whether decoding ahead pays for a decode of `width × height` rows: the producer thread
    /// and its hand-offs cost about 0.1 ms, worth it from about 8 megapixels.
    static func pays(width: Int, height: Int) -> Bool { width * height >= 8_000_000 }

    /// Starts the producer thread over `inner`, which from now on only it touches.
    init(_ inner: any ImageRowSource, blockRows: Int = 32, blockCount: Int = 3) {
        precondition(blockRows > 0 && blockCount > 0)
        self.inner = inner
        width = inner.width
        height = inner.height
        layout = inner.layout
        sourceWidth = inner.sourceWidth
        sourceHeight = inner.sourceHeight
        finalICC = inner.iccProfile
        finalWarnings = inner.warnings
        finalDamage = inner.damage
        notes = inner.notes
        self.blockRows = blockRows
        self.blockCount = blockCount
        rowBytes = max(1, width * layout.channels)
        ring = .allocate(capacity: rowBytes * blockRows * blockCount)
        slotRows = Array(repeating: 0, count: blockCount)
        workingMemory = inner.workingMemory + rowBytes * blockRows * blockCount
        Self.count(+1)
        let thread = Thread { [self] in produce() }
        thread.name = "pushattach.decode-ahead"
        thread.stackSize = 8 << 20  // as a main thread's: codecs may use the stack freely
        thread.start()
    }

    deinit {
        finish()
        ring.deallocate()
    }

    var iccProfile: [UInt8]? { condition.withLock { finalICC } }
    var warnings: [String] { condition.withLock { finalWarnings } }
    var damage: [String] { condition.withLock { finalDamage } }

    /// Stops the producer (at its next block, when it has not ended) and waits until it has left
    /// the wrapped source. Idempotent; after it, warnings and damage are final when every row was
    /// read, and `readRows` hands out what the ring still holds.
    func finish() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !exited { condition.wait() }
        condition.unlock()
    }

    // MARK: Producer

    private func produce() {
        var total = 0
        var slot = 0
        condition.lock()
        while true {
            while filled - released == blockCount && !stopping { condition.wait() }
            if stopping { break }
            slot = filled % blockCount
            condition.unlock()

            let base = ring + slot * blockRows * rowBytes
            var n = 0
            var error: CodecError?
            var atEnd = false
            while n < blockRows && total < height {
                do throws(CodecError) {
                    let got = try inner.readRows(into: base + n * rowBytes, stride: rowBytes, count: 1)
                    if got != 1 {
                        atEnd = true
                        break
                    }
                } catch let caught {
                    error = caught
                    break
                }
                n += 1
                total += 1
            }
            if total == height { atEnd = true }
            var icc: [UInt8]?, warnings: [String] = [], damage: [String] = []
            let last = atEnd || error != nil
            if last {
                icc = inner.iccProfile
                warnings = inner.warnings
                damage = inner.damage
            }

            condition.lock()
            slotRows[slot] = n
            filled += 1
            if last {
                ended = true
                failure = error
                if let icc { finalICC = icc }
                finalWarnings = warnings
                finalDamage = damage
            }
            condition.broadcast()
            if last { break }
        }
        ended = true
        exited = true
        Self.count(-1)
        condition.broadcast()
        condition.unlock()
    }

    // MARK: Consumer

    func readRows(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws(CodecError) -> Int {
        var got = 0
        let bytes = width * layout.channels
        while got < count {
            if holding && offset < rowsInBlock {
                let n = min(count - got, rowsInBlock - offset)
                let block = ring + (released % blockCount) * blockRows * rowBytes
                for i in 0..<n {
                    (buffer + (got + i) * stride).update(from: block + (offset + i) * rowBytes, count: bytes)
                }
                offset += n
                got += n
                rowsRead += n
                continue
            }
            condition.lock()
            if holding {
                released += 1
                holding = false
                condition.broadcast()
            }
            while filled == released && !ended { condition.wait() }
            if filled == released {
                // The producer ended (or was stopped) and every block was handed out.
                let error = failure
                if got == 0 { failure = nil }
                condition.unlock()
                if got == 0, let error { throw error }
                return got
            }
            rowsInBlock = slotRows[released % blockCount]
            offset = 0
            holding = true
            condition.unlock()
        }
        return got
    }

    // MARK: Test hook

    nonisolated(unsafe) private static var live = 0
    private static let liveLock = NSLock()
    private static func count(_ delta: Int) { liveLock.withLock { live += delta } }
    /// Producer threads started and not yet exited (tests check that none leaks).
    static var liveProducers: Int { liveLock.withLock { live } }
}
