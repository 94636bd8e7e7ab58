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

    /// A planar decode of `data`: `body` gets the luma rows as a `.gray` row source, which it
    /// must read to the end, then `chroma()` gives the two 4:2:0 chroma planes at the same
    /// scale. At 1/8 they come from the DC coefficients alone when `dcPlanes` takes the file
    /// (no libjpeg entropy decoding), else from libjpeg's raw components
    /// (`JPEGRowDecoder.planar`), unless `onlyDCAtOneEighth`. Nil, without calling `body`, when
    /// the file is not three-component YCbCr or has a sampling the planes do not take, or at
    /// 1/8 with `onlyDCAtOneEighth` when `dcPlanes` does not take it (decode it as RGB then).
    ///
    ///     let planes = try JPEGCodec.withPlanes(data, options: options) { luma, chroma in
    ///         let y = try luma.readAll()
    ///         let (cb, cr) = chroma()
    ///         return YCbCrPlanes(y: y, cb: cb, cr: cr)
    ///     }
    package static func withPlanes<R>(
        _ data: Data, options: DecodeOptions, onlyDCAtOneEighth: Bool = false,
        _ body: (any ImageRowSource, () -> (cb: PixelBuffer, cr: PixelBuffer)) throws -> R
    ) throws -> R? {
        try data.withUnsafeBytes { bytes -> R? in
            let decoder = try JPEGRowDecoder(header: bytes, strict: options.strict)
            let scale = Scaling.jpeg(width: decoder.header.width, height: decoder.header.height, box: options.minimumSize)
            let eighth = scale.num * 8 == scale.denom
            if eighth, let dc = try dcPlanes(bytes, header: decoder, options: options) {
                let luma = FrameRowSource(dc.luma)
                return try body(luma) {
                    precondition(luma.rowsRead == luma.height, "chroma planes asked for before the last luma row")
                    return (dc.cb, dc.cr)
                }
            }
            guard !(eighth && onlyDCAtOneEighth), let rows = try JPEGRowDecoder.planar(decoder, options: options),
                let planes = rows.planes
            else {
                return nil
            }
            return try body(rows) {
                precondition(rows.rowsRead == rows.height, "chroma planes asked for before the last luma row")
                return (planes.cb, planes.cr)
            }
        }
    }
}
