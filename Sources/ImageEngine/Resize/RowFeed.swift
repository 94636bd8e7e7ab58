import ImageCodecs

/// Rows of an `ImageRowSource` made ready for the Lanczos3 passes, one at a time: read,
/// checked for opacity, box-reduced (when `BoxReduce.factor` > 1 on an axis) and premultiplied.
///
///     var feed = try RowFeed(source, fx: 2, fy: 2, premultiplies: true, rowBuffer: row, sums: sums)
///     try feed.next(into: ringSlot)   // one reduced, premultiplied row
///     try feed.drain()                // the rows no output pixel needs: read for opacity and damage
///
/// It produces exactly the rows `BoxReduce.reduce` / `Premultiply.premultiply` would make over
/// the whole frame, holding one source row and one row of sums, never the frame. A row whose
/// alpha is all 255 premultiplies to itself, so only translucent rows pay for it; `opaque`
/// says whether every alpha byte seen so far was 255 (always true for gray and RGB).
struct RowFeed {
    let source: any ImageRowSource
    /// Source row size, channels, and the box factors.
    let width: Int
    let height: Int
    let channels: Int
    let fx: Int
    let fy: Int
    /// Colour is multiplied by alpha on the way (RGBA being resampled).
    let premultiplies: Bool
    /// Size of the rows `next` produces.
    let planeWidth: Int
    let planeHeight: Int
    /// One source row (`width × channels` bytes) and one row of sums (as many UInt32s).
    private let rowBuffer: UnsafeMutablePointer<UInt8>
    private let sums: UnsafeMutablePointer<UInt32>
    /// Rows produced by `next`, and source rows read.
    private(set) var produced = 0
    private(set) var consumed = 0
    /// True while every alpha byte read was 255.
    private(set) var opaque = true

    init(
        _ source: any ImageRowSource, fx: Int, fy: Int, premultiplies: Bool, rowBuffer: UnsafeMutablePointer<UInt8>,
        sums: UnsafeMutablePointer<UInt32>
    ) {
        self.source = source
        width = source.width
        height = source.height
        channels = source.layout.channels
        self.fx = fx
        self.fy = fy
        self.premultiplies = premultiplies && source.layout == .rgba
        planeWidth = BoxReduce.reducedLength(width, factor: fx)
        planeHeight = BoxReduce.reducedLength(height, factor: fy)
        self.rowBuffer = rowBuffer
        self.sums = sums
    }

    /// Writes the next plane row (`planeWidth × channels` bytes) at `dst`.
    mutating func next(into dst: UnsafeMutablePointer<UInt8>) throws(CodecError) {
        precondition(produced < planeHeight, "read past the last row")
        defer { produced += 1 }
        if fx == 1 && fy == 1 {
            let translucent = try read(into: dst)
            if translucent && premultiplies {
                Premultiply.premultiply(dst, width: width, height: 1, stride: width &* channels, into: dst)
            }
            return
        }
        let y0 = produced &* fy, y1 = min(height, y0 &+ fy)
        sums.update(repeating: 0, count: width &* channels)
        for _ in y0..<y1 {
            let translucent = try read(into: rowBuffer)
            BoxReduce.add(
                rowBuffer, width: width, channels: channels, premultiply: translucent && premultiplies, into: sums)
        }
        BoxReduce.average(sums, width: width, channels: channels, fx: fx, rows: y1 &- y0, into: dst)
    }

    /// Reads the source rows `next` has not: no output needs them, but they count for
    /// `opaque` and the decoder reports damage only once it has seen them.
    mutating func drain() throws(CodecError) {
        while consumed < height { _ = try read(into: rowBuffer) }
    }

    /// Reads one source row into `dst`; true when it has a translucent pixel.
    private mutating func read(into dst: UnsafeMutablePointer<UInt8>) throws(CodecError) -> Bool {
        let got = try source.readRows(into: dst, stride: width &* channels, count: 1)
        guard got == 1 else {
            throw .corrupt(
                codec: "row decoder", message: "the image ended after \(consumed) of its \(height) rows")
        }
        consumed += 1
        guard channels == 4, !Premultiply.isOpaque(dst, width: width, height: 1, stride: width &* 4) else {
            return false
        }
        opaque = false
        return true
    }
}
