import Foundation

/// The server's counters, as `/metrics` shows them in the Prometheus text format, and a count
/// of their changes that a caller can wait on (`waitForChange`).
final class ServerMetrics: @unchecked Sendable {
    private let lock = NSCondition()
    /// Bumped by every change of a counter, and by `noteChange()` (a gauge the caller reads).
    private var generation = 0
    private var requests: [Int: Int] = [:]
    private var hits = 0
    private var keptHits = 0
    private var misses = 0
    private var originFetches = 0
    private var elsewhere = 0
    private var coalesced = 0
    private var rejectedBusy = 0
    /// Upper bounds, in seconds, of the preparation histogram.
    static let buckets: [Double] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 60, 120]
    private var preparationCounts = [Int](repeating: 0, count: buckets.count + 1)
    private var preparationSum = 0.0

    func answered(status: Int) { change { requests[status, default: 0] += 1 } }
    /// A cache hit; `kept`: answered with the answer an earlier hit kept made (`HotAnswers`).
    func hit(kept: Bool = false) {
        change {
            hits += 1
            if kept { keptHits += 1 }
        }
    }
    func miss(coalesced joined: Bool) {
        change {
            misses += 1
            if joined { coalesced += 1 }
        }
    }
    func fetched() { change { originFetches += 1 } }
    func preparedElsewhere() { change { elsewhere += 1 } }
    func busy() { change { rejectedBusy += 1 } }

    func prepared(seconds: Double) {
        change {
            let index = Self.buckets.firstIndex { seconds <= $0 } ?? Self.buckets.count
            preparationCounts[index] += 1
            preparationSum += seconds
        }
    }

    /// Wakes the waiters: a gauge `render` is given (the preparations in flight) changed.
    func noteChange() { change {} }

    /// The changes so far, to wait for the next one from.
    var changes: Int { lock.withLock { generation } }

    /// Blocks until a change after `seen` (true), or until `end` (false).
    func waitForChange(after seen: Int, until end: Date) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        while generation == seen {
            if !lock.wait(until: end) { return generation != seen }
        }
        return true
    }

    private func change(_ body: () -> Void) {
        lock.lock()
        body()
        generation += 1
        lock.broadcast()
        lock.unlock()
    }

    /// The text `/metrics` answers with; the gauges are read by the caller.
    func render(inFlight: Int, pending: Int, unattended: Int, cacheBytes: Int, hotAnswers: Int) -> String {
        lock.withLock {
            var out = ""
            func metric(_ name: String, _ type: String, _ help: String, _ lines: [String]) {
                out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n" + lines.map { $0 + "\n" }.joined()
            }
            metric(
                "pushattach_requests_total", "counter", "Requests answered, by HTTP status.",
                requests.keys.sorted().map { "pushattach_requests_total{status=\"\($0)\"} \(requests[$0]!)" })
            metric("pushattach_cache_hits_total", "counter", "Attachment requests answered from the cache.", ["pushattach_cache_hits_total \(hits)"])
            metric(
                "pushattach_cache_hits_kept_total", "counter",
                "Cache hits answered with the answer an earlier hit kept made (the entry checked by one stat, not opened).",
                ["pushattach_cache_hits_kept_total \(keptHits)"])
            metric("pushattach_cache_misses_total", "counter", "Attachment requests not in the cache.", ["pushattach_cache_misses_total \(misses)"])
            metric("pushattach_origin_fetches_total", "counter", "Preparations started (one origin download each).", ["pushattach_origin_fetches_total \(originFetches)"])
            metric(
                "pushattach_prepared_elsewhere_total", "counter",
                "Misses answered from an entry found on a second look: another process sharing the cache folder stored it, most often while this one waited on its lease.",
                ["pushattach_prepared_elsewhere_total \(elsewhere)"])
            metric("pushattach_coalesced_waits_total", "counter", "Misses that waited for a preparation another request started.", ["pushattach_coalesced_waits_total \(coalesced)"])
            metric("pushattach_busy_total", "counter", "Misses refused with 503 because max pending preparations were in flight.", ["pushattach_busy_total \(rejectedBusy)"])
            var cumulative = 0
            var lines: [String] = []
            for (index, bound) in Self.buckets.enumerated() {
                cumulative += preparationCounts[index]
                lines.append("pushattach_preparation_seconds_bucket{le=\"\(bound)\"} \(cumulative)")
            }
            cumulative += preparationCounts[Self.buckets.count]
            lines.append("pushattach_preparation_seconds_bucket{le=\"+Inf\"} \(cumulative)")
            lines.append("pushattach_preparation_seconds_sum \(preparationSum)")
            lines.append("pushattach_preparation_seconds_count \(cumulative)")
            metric("pushattach_preparation_seconds", "histogram", "Time to prepare and cache one attachment.", lines)
            metric("pushattach_in_flight_requests", "gauge", "Requests received and not yet answered.", ["pushattach_in_flight_requests \(inFlight)"])
            metric("pushattach_pending_preparations", "gauge", "Preparations in flight.", ["pushattach_pending_preparations \(pending)"])
            metric(
                "pushattach_unattended_preparations", "gauge",
                "Preparations in flight that no request waits for any more (they outlived their deadline).",
                ["pushattach_unattended_preparations \(unattended)"])
            metric("pushattach_cache_bytes", "gauge", "Bytes of cache entries, as this process last counted.", ["pushattach_cache_bytes \(cacheBytes)"])
            metric(
                "pushattach_hot_answers", "gauge",
                "Cache entries kept open with their answer made, for their next hits (each holds a file descriptor).",
                ["pushattach_hot_answers \(hotAnswers)"])
            metric("pushattach_resident_memory_bytes", "gauge", "Resident set size of this process.", ["pushattach_resident_memory_bytes \(Self.residentBytes)"])
            return out
        }
    }

    /// This process's resident set size, from /proc/self/statm (0 where there is none).
    static var residentBytes: Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
