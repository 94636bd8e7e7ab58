import Foundation

extension JPEGCodec {
    /// A `JPEGRowDecoder` over `data` for `ImageCodecs.withRows`: `data` is read in place and
    /// the decoder lives only inside `body`.
    ///
    ///     try JPEGCodec.withRows(data, options: DecodeOptions(minimumSize: (2048, 2048))) { rows in
    ///         try rows.readRows(into: row, stride: rowBytes, count: 1)
    ///     }
    static func withRows<R>(_ data: Data, options: DecodeOptions, _ body: (any ImageRowSource) throws -> R) throws
        -> R
    {
        try data.withUnsafeBytes { bytes in
            let rows = try JPEGRowDecoder(bytes, options: options)
            return try body(rows)
        }
    }
}
