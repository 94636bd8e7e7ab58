/// A decoder that hands out an image's rows top to bottom, so the engine never holds a frame
/// larger than its output: rows flow from here through the resampler into the output.
///
///     try ImageCodecs.withRows(data, format: .jpeg, options: DecodeOptions(minimumSize: (2048, 2048))) { rows in
///         var row = [UInt8](repeating: 0, count: rows.width * rows.layout.channels)
///         while try row.withUnsafeMutableBufferPointer({ try rows.readRows(into: $0.baseAddress!, stride: $0.count, count: 1) }) == 1 {
///             // use one row
///         }
///     }
///
/// A source lives only inside the `ImageCodecs.withRows` closure that opened it (it reads the
/// encoded bytes in place), and is used from one thread.
package protocol ImageRowSource: AnyObject {
    /// Size of the rows handed out: the header size, or less after a shrink-on-load decode.
    var width: Int { get }
    var height: Int { get }
    /// `.gray`, `.rgb` or `.rgba` (straight, not premultiplied, alpha), 8 bits per channel.
    var layout: PixelBuffer.Layout { get }
    /// The size in the header.
    var sourceWidth: Int { get }
    var sourceHeight: Int { get }
    /// The ICC profile that describes the rows: the embedded one, or nil when the image has
    /// none or the codec converted the pixels (a CMYK JPEG becomes sRGB through its profile or
    /// the default CMYK profile).
    var iccProfile: [UInt8]? { get }
    /// What the codec did to the colours, for the caller's log ("converted ycck to sRGB through
    /// the embedded ICC profile ..."); known once the source is open.
    var notes: [String] { get }
    /// Problems the codec recovered from so far (lenient mode), in its own words; complete once
    /// the last row is read.
    var warnings: [String] { get }
    /// The warnings that say the image data itself is damaged (see `DecodedImage.damage`).
    var damage: [String] { get }
    /// Bytes the decoder holds besides the caller's rows (a progressive JPEG's coefficients, an
    /// interlaced PNG's frame), an estimate for memory admission.
    var workingMemory: Int { get }
    /// Rows handed out so far.
    var rowsRead: Int { get }
    /// Reads up to `count` rows into `buffer`, each `stride` (>= width × channels) bytes apart.
    /// Returns the rows read: less than `count` only at the end of the image (0 after it).
    func readRows(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws(CodecError) -> Int
}

extension ImageRowSource {
    /// Most codecs leave the colours as stored.
    package var notes: [String] { [] }

    /// Every remaining row in one buffer: the full-frame decode, for callers that need it.
    package func readAll() throws(CodecError) -> PixelBuffer {
        var pixels = PixelBuffer(width: width, height: height, layout: layout)
        let stride = pixels.stride, start = rowsRead, remaining = height - rowsRead
        var failure: CodecError?
        pixels.withUnsafeMutableBytes { buffer in
            guard remaining > 0, let base = buffer.baseAddress else { return }
            do throws(CodecError) { _ = try readRows(into: base + start * stride, stride: stride, count: remaining) } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return pixels
    }
}

/// Rows of a frame decoded whole (formats without a row decoder, the chroma planes a planar
/// JPEG decode gathers, and tests).
package final class FrameRowSource: ImageRowSource {
    let image: DecodedImage
    package private(set) var rowsRead = 0

    init(_ image: DecodedImage) { self.image = image }

    /// The rows of `pixels`, as a decode of that size with nothing to say.
    package convenience init(_ pixels: PixelBuffer) {
        self.init(DecodedImage(pixels: pixels, sourceWidth: pixels.width, sourceHeight: pixels.height))
    }

    package var width: Int { image.pixels.width }
    package var height: Int { image.pixels.height }
    package var layout: PixelBuffer.Layout { image.pixels.layout }
    package var sourceWidth: Int { image.sourceWidth }
    package var sourceHeight: Int { image.sourceHeight }
    package var iccProfile: [UInt8]? { image.iccProfile }
    package var notes: [String] { image.notes }
    package var warnings: [String] { image.warnings }
    package var damage: [String] { image.damage }
    package var workingMemory: Int { image.pixels.bytes.count }

    package func readRows(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws(CodecError) -> Int {
        let n = min(count, height - rowsRead)
        guard n > 0 else { return 0 }
        let rowBytes = width * layout.channels
        image.pixels.withUnsafeBytes { bytes in
            for i in 0..<n {
                (buffer + i * stride).update(from: bytes.baseAddress! + (rowsRead + i) * image.pixels.stride, count: rowBytes)
            }
        }
        rowsRead += n
        return n
    }
}
