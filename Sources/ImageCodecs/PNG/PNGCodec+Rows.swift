import Foundation

extension PNGCodec {
    /// A row decoder over `data` for `ImageCodecs.withRows`.
    /// (Full-frame fallback until the libpng row decoder lands.)
    static func withRows<R>(_ data: Data, options: DecodeOptions, _ body: (any ImageRowSource) throws -> R) throws
        -> R
    {
        try body(FrameRowSource(try decode(data, options: options)))
    }
}
