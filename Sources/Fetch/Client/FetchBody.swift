import Foundation

/// A downloaded body: in memory, or (past `FetchPolicy.spoolThreshold`, with a `Spool`) in a
/// spool file.
///
///     switch response.content {
///     case .memory(let data): decode(data)
///     case .file(let file): decode(try file.mapped())
///     }
package enum FetchBody: Sendable {
    case memory(Data)
    case file(SpooledFile)

    /// The body's length in bytes.
    package var count: Int {
        switch self {
        case .memory(let data): data.count
        case .file(let file): file.size
        }
    }

    /// The bytes of the body held in memory: all of it, or none for a spooled one.
    package var inMemoryCount: Int {
        if case .memory(let data) = self { data.count } else { 0 }
    }

    /// True when the body is in a spool file.
    package var isSpooled: Bool {
        if case .file = self { return true }
        return false
    }

    /// The first `count` bytes (fewer when the body is shorter): enough to sniff the type.
    package func prefix(_ count: Int) throws(SpoolFailure) -> Data {
        switch self {
        case .memory(let data): Data(data.prefix(count))
        case .file(let file): try file.prefix(count)
        }
    }

    /// All of it as `Data`: the bytes in memory, or the spool file mapped (no copy).
    package func data() throws(SpoolFailure) -> Data {
        switch self {
        case .memory(let data): data
        case .file(let file): try file.mapped()
        }
    }
}
