/// Lanczos3 weight tables by axis, reused across images on one thread.
///
///     let cache = ResampleWeightCache()
///     let wx = cache.weights(5760, 2048)   // built once, then looked up
///
/// A table for a 2048 px axis holds about 0.5 MB (four layouts of the weights, one per pass
/// that reads them), so the cache is bounded by bytes, not only entries: it is emptied when
/// the next table would take it past `byteLimit` or `limit` entries.
final class ResampleWeightCache {
    private struct AxisKey: Hashable {
        var source: Int
        var destination: Int
    }

    private static let limit = 64
    /// About the tables of four resizes to 2048 px on both axes.
    static let byteLimit = 4 << 20
    private var tables: [AxisKey: ResampleWeights] = [:]
    /// The bytes of the tables held now.
    private(set) var bytes = 0

    init() {}

    /// The table taking `source` samples to `destination` samples.
    func weights(_ source: Int, _ destination: Int) -> ResampleWeights {
        let key = AxisKey(source: source, destination: destination)
        if let cached = tables[key] { return cached }
        let table = ResampleWeights(source: source, destination: destination)
        if tables.count >= Self.limit || bytes + table.bytes > Self.byteLimit {
            tables.removeAll(keepingCapacity: true)
            bytes = 0
        }
        tables[key] = table
        bytes += table.bytes
        return table
    }
}
