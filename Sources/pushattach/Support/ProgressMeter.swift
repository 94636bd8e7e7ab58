import Foundation
import PushAttach
import PushAttachBatch

/// Counts finished items and renders a one-line progress report: done/total (when known), rate,
/// failures and ETA. Thread-safe.
///
///     let meter = ProgressMeter()
///     meter.finished(entry)
///     meter.line()   // "120/10000  85.2/s  3 not prepared  ETA 1m56s"
final class ProgressMeter: @unchecked Sendable {
    private let lock = NSLock()
    private let start: ContinuousClock.Instant
    private var done = 0
    private var notPrepared = 0
    private var skipped = 0
    private var total: Int?

    init() { start = ContinuousClock.now }

    /// The number of items expected, once counted (nil while unknown).
    func setTotal(_ total: Int?) { lock.withLock { self.total = total } }

    func finished(_ entry: BatchEntry) {
        lock.withLock {
            done += 1
            if entry.status != .prepared { notPrepared += 1 }
        }
    }

    func skippedOne() { lock.withLock { skipped += 1 } }

    func line(now: ContinuousClock.Instant = .now) -> String {
        lock.withLock {
            let elapsed = (now - start).components
            let seconds = max(0.001, Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
            let rate = Double(done) / seconds
            let count = done + skipped
            var text = total.map { "\(min(count, $0))/\($0)" } ?? "\(count) done"
            text += String(format: "  %.1f/s", rate)
            text += "  \(notPrepared) not prepared"
            if skipped > 0 { text += "  \(skipped) skipped" }
            if let total, rate > 0, total > count {
                text += "  ETA " + Self.duration(Double(total - count) / rate)
            }
            return text
        }
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(String(format: "%02d", s % 60))s" }
        return "\(s / 3600)h\(String(format: "%02d", (s % 3600) / 60))m"
    }
}
