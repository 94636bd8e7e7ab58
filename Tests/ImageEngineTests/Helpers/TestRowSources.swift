import ImageCodecs

/// A row source over a buffer in memory that works like a real decoder: it "decodes" rows in
/// uneven internal chunks (1, 3, 7, 2, 5 rows ... as an MCU row or a libpng pass would) and
/// hands them out from that chunk, writing exactly `width × channels` bytes per row. Damage and
/// warnings appear only once the last row is read.
final class ChunkedRowSource: ImageRowSource {
    let pixels: PixelBuffer
    let chunks: [Int]
    let finalDamage: [String]
    private(set) var rowsRead = 0
    private var chunk: [UInt8] = []
    private var chunkStart = 0
    private var chunkRows = 0
    private var chunkIndex = 0
    /// The most rows held at once in the internal chunk.
    private(set) var largestChunk = 0

    init(_ pixels: PixelBuffer, chunks: [Int] = [1, 3, 7, 2, 5, 16, 4], damage: [String] = []) {
        self.pixels = pixels
        self.chunks = chunks
        self.finalDamage = damage
    }

    var width: Int { pixels.width }
    var height: Int { pixels.height }
    var layout: PixelBuffer.Layout { pixels.layout }
    var sourceWidth: Int { pixels.width }
    var sourceHeight: Int { pixels.height }
    var iccProfile: [UInt8]? { nil }
    var warnings: [String] { rowsRead == height ? finalDamage : [] }
    var damage: [String] { rowsRead == height ? finalDamage : [] }
    var workingMemory: Int { largestChunk * width * layout.channels }

    func readRows(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws(CodecError) -> Int {
        let rowBytes = width * layout.channels
        precondition(stride >= rowBytes, "stride shorter than a row")
        var done = 0
        while done < count, rowsRead < height {
            if rowsRead >= chunkStart + chunkRows { decodeChunk() }
            let r = rowsRead - chunkStart
            chunk.withUnsafeBufferPointer { (buffer + done * stride).update(from: $0.baseAddress! + r * rowBytes, count: rowBytes) }
            rowsRead += 1
            done += 1
        }
        return done
    }

    private func decodeChunk() {
        let rowBytes = width * layout.channels
        chunkStart = rowsRead
        chunkRows = min(chunks[chunkIndex % chunks.count], height - rowsRead)
        chunkIndex += 1
        largestChunk = max(largestChunk, chunkRows)
        chunk = []
        for y in chunkStart..<(chunkStart + chunkRows) {
            chunk += pixels.bytes[(y * pixels.stride)..<(y * pixels.stride + rowBytes)]
        }
    }
}

/// A source that makes its rows as they are asked for (a gradient with a little noise), so a
/// test can stream a large image without ever holding it.
final class GeneratedRowSource: ImageRowSource {
    let width: Int
    let height: Int
    let layout: PixelBuffer.Layout
    private(set) var rowsRead = 0

    init(width: Int, height: Int, layout: PixelBuffer.Layout) {
        self.width = width
        self.height = height
        self.layout = layout
    }

    var sourceWidth: Int { width }
    var sourceHeight: Int { height }
    var iccProfile: [UInt8]? { nil }
    var warnings: [String] { [] }
    var damage: [String] { [] }
    var workingMemory: Int { 0 }

    func readRows(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws(CodecError) -> Int {
        let n = min(count, height - rowsRead), c = layout.channels
        for i in 0..<n {
            let y = rowsRead + i, row = buffer + i * stride
            for x in 0..<width {
                for k in 0..<c { row[x * c + k] = UInt8(truncatingIfNeeded: x &* 7 &+ y &* 3 &+ k &* 50 &+ (x ^ y) & 15) }
            }
        }
        rowsRead += n
        return n
    }
}
