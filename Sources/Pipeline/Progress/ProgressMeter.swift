import Foundation

/// Counts finished items and renders a one-line progress report: done/total (when known), rate,
/// failures and ETA. Thread-safe.
///
///     let meter = ProgressMeter()
///     meter.finished(entry)
///     meter.line()   // "120/10000  85.2/s  3 not prepared  ETA 1m56s"
package final class ProgressMeter: @unchecked Sendable {
    private let lock = NSLock()
    private let start: ContinuousClock.Instant
    private var done = 0
    private var notPrepared = 0
    private var skipped = 0
    private var total: Int?

    package init() { start = ContinuousClock.now }

    /// The number of items expected, once counted (nil while unknown).
    package func setTotal(_ total: Int?) { lock.withLock { self.total = total } }

    package func finished(_ entry: ManifestEntry) {
        lock.withLock {
            done += 1
            if entry.status != .prepared { notPrepared += 1 }
        }
    }

    package func skippedOne() { lock.withLock { skipped += 1 } }

    package func line(now: ContinuousClock.Instant = .now) -> String {
        lock.withLock {
            let seconds = max(0.001, Double((now - start).milliseconds) / 1000)
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

/// Counts the items of INPUT arguments without keeping them, for a progress total. Reads every
/// input once more, so only for files (never `-`).
package enum InputCounter {
    package static func count(_ inputs: [String]) -> Int? {
        guard !inputs.contains("-") else { return nil }
        var count = 0
        // Problems count too: each becomes a failed entry.
        for _ in InputReader(inputs: inputs) { count += 1 }
        return count
    }
}
