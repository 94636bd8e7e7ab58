/// Lanczos3 weight tables by axis, reused across images on one thread.
///
///     let cache = ResampleWeightCache()
///     let wx = cache.weights(5760, 2048, for: .planes)   // built once, then looked up
///
/// A table holds the weights and the layouts of them that the passes asked for: about 0.18 MB
/// for a 2048 px axis read by the vertical pass or over planes, 0.55 MB once the multi-channel
/// layouts are added. The cache is bounded by bytes, not only entries: it is emptied when the
/// next table, or the next layout added to one it holds, would take it past `byteLimit` or
/// `limit` entries.
final class ResampleWeightCache {
    private struct AxisKey: Hashable {
        var source: Int
        var destination: Int
    }

    private static let limit = 64
    /// About the tables of eight photo sizes fitted in 2048 px as planes (luma and chroma, both
    /// axes: some 0.48 MB a size), or of four fitted as RGB.
    static let byteLimit = 4 << 20
    private var tables: [AxisKey: ResampleWeights] = [:]
    /// The bytes of the tables held now.
    private(set) var bytes = 0

    init() {}

    /// The table taking `source` samples to `destination` samples, with at least `layouts`
    /// (none for the vertical pass, `.horizontal(channels:)` for the horizontal one).
    func weights(_ source: Int, _ destination: Int, for layouts: ResampleWeights.Layouts) -> ResampleWeights {
        let key = AxisKey(source: source, destination: destination)
        let cached = tables[key]
        if let cached, cached.layouts.isSuperset(of: layouts) { return cached }
        let table =
            cached?.adding(layouts) ?? ResampleWeights(source: source, destination: destination, layouts: layouts)
        let held = bytes - (cached?.bytes ?? 0)
        // A held table that gains a layout replaces itself: no entry more.
        if tables.count - (cached == nil ? 0 : 1) >= Self.limit || held + table.bytes > Self.byteLimit {
            tables.removeAll(keepingCapacity: true)
            bytes = 0
        } else {
            bytes = held
        }
        tables[key] = table
        bytes += table.bytes
        return table
    }
}
