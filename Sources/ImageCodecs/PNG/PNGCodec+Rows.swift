import Foundation

extension PNGCodec {
    /// A row decoder over `data` for `ImageCodecs.withRows`: a `PNGRowDecoder` reading the bytes
    /// in place, its IHDR size checked against `options.pixelBudget` before any row is read.
    ///
    ///     try PNGCodec.withRows(data, options: DecodeOptions()) { rows in
    ///         _ = try rows.readRows(into: row, stride: rowBytes, count: 1)
    ///     }
    ///
    /// Errors opening the decoder are `CodecError`; `body`'s own errors pass through.
    static func withRows<R>(_ data: Data, options: DecodeOptions, _ body: (any ImageRowSource) throws -> R) throws
        -> R
    {
        try data.withUnsafeBytes { raw in
            let decoder = try PNGRowDecoder(raw, pixelBudget: options.pixelBudget)
            return try body(decoder)
        }
    }
}
