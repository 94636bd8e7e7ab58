/// Why a recognised format's header could not be trusted.
///
///     do { _ = try Sniffer.sniff(bytes) }
///     catch .invalidDimensions(let format, let w, let h) { print(format, w, h) }
///
/// Unrecognised bytes are not an error: they sniff as `.unknown`.
public enum SniffError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file ends inside a header structure (a chunk, box, segment or block).
    case truncated(format: MediaFormat, detail: String)
    /// A header field holds a value the format does not allow.
    case invalidHeader(format: MediaFormat, detail: String)
    /// The header states zero or impossibly large dimensions.
    case invalidDimensions(format: MediaFormat, width: Int, height: Int)

    /// The format the bytes were recognised as before the header failed.
    public var format: MediaFormat {
        switch self {
        case .truncated(let format, _), .invalidHeader(let format, _), .invalidDimensions(let format, _, _): format
        }
    }

    /// One line for people. `detail` is escaped again here (`DisplayText`), in case a sniffer
    /// quoted bytes of the file without escaping them.
    public var description: String {
        switch self {
        case .truncated(let format, let detail):
            "\(format.displayName) is cut short: \(DisplayText.escaped(detail)); the file is incomplete, download or export it again"
        case .invalidHeader(let format, let detail):
            "\(format.displayName) header is invalid: \(DisplayText.escaped(detail)); the file is corrupt, export it again"
        case .invalidDimensions(let format, let width, let height):
            "\(format.displayName) header states impossible dimensions \(width)x\(height); the file is corrupt, export it again"
        }
    }
}
