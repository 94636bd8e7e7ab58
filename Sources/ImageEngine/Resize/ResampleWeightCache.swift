/// Lanczos3 weight tables by axis, reused across images on one thread.
///
///     let cache = ResampleWeightCache()
///     let wx = cache.weights(5760, 2048)   // built once, then looked up
///
/// Tables are tiny; the cache is simply emptied when it passes `limit` entries.
final class ResampleWeightCache {
    private struct AxisKey: Hashable {
        var source: Int
        var destination: Int
    }

    private static let limit = 64
    private var tables: [AxisKey: ResampleWeights] = [:]

    init() {}

    /// The table taking `source` samples to `destination` samples.
    func weights(_ source: Int, _ destination: Int) -> ResampleWeights {
        let key = AxisKey(source: source, destination: destination)
        if let cached = tables[key] { return cached }
        if tables.count >= Self.limit { tables.removeAll(keepingCapacity: true) }
        let table = ResampleWeights(source: source, destination: destination)
        tables[key] = table
        return table
    }
}
