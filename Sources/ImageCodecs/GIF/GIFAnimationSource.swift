internal import CGIF
import Foundation

/// Reads a GIF record by record through giflib (`DGifOpen` over the bytes in memory, then
/// `DGifGetRecordType` / `DGifGetImageDesc` / `DGifGetLine`), compositing each frame onto one canvas.
/// A frame whose LZW minimum code size is 9-11 (legal; giflib refuses above 8) is decoded by
/// `GIFLZWDecoder` from the same bytes, and giflib's walk goes on after it.
///
///     let source = try GIFAnimationSource(data, options: DecodeOptions())
///     while let frame = try source.nextFrame() { _ = frame.canvas }
///
/// Disposal follows the graphics control extension: none/keep, background (the frame's rectangle
/// cleared to transparent, as browsers do), previous (the canvas saved before the frame is put
/// back). Frames partly outside the canvas are clipped; interlaced rows are placed by pass.
/// Memory: a copy of the file, the canvas, at most one saved canvas and one row of indices —
/// never a whole frame's raster (`DGifSlurp` would hold every frame).
/// Budget: the logical screen is checked before anything is decoded (`checkCanvas`), and each
/// frame's decoded area (its width x the rows decoded, which can exceed the screen's) before
/// its rows are (`drawFrame`).
final class GIFAnimationSource: AnimationSource {
    static let name = "giflib"

    let canvasWidth: Int
    let canvasHeight: Int
    let frameCount: Int
    let loopCount: Int
    let totalDurationMilliseconds: Int
    private(set) var warnings: [String] = []

    private let reader: GIFReader
    private let gif: UnsafeMutablePointer<GifFileType>
    private let strict: Bool
    private let pixelBudget: Int
    private var canvas: PixelBuffer
    private var saved: PixelBuffer?
    /// The previous frame's disposal, applied before the next frame is drawn.
    private var pendingDisposal: (mode: Int32, x: Int, y: Int, width: Int, height: Int)?
    private var decoded = 0
    private var finished = false

    init(_ data: Data, options: DecodeOptions) throws(CodecError) {
        let reader = GIFReader(data)
        let scan = reader.withBytes { GIFScan($0) }
        try ImageCodecs.checkCanvas(width: scan.width, height: scan.height, options: options)
        if let damage = scan.damage {
            if options.strict || scan.frames == 0 { throw .corrupt(codec: Self.name, message: damage) }
            warnings.append(damage)
        }
        var error: Int32 = 0
        guard let gif = DGifOpen(Unmanaged.passUnretained(reader).toOpaque(), gifRead, &error) else {
            throw .corrupt(codec: Self.name, message: Self.describe(error, "DGifOpen"))
        }
        self.reader = reader
        self.gif = gif
        canvasWidth = scan.width
        canvasHeight = scan.height
        frameCount = scan.frames
        loopCount = scan.loopCount
        totalDurationMilliseconds = scan.totalCentiseconds * 10
        strict = options.strict
        pixelBudget = options.pixelBudget
        canvas = PixelBuffer(width: scan.width, height: scan.height, layout: .rgba)
    }

    deinit {
        var error: Int32 = 0
        _ = DGifCloseFile(gif, &error)
    }

    static func describe(_ code: Int32, _ function: String) -> String {
        let text = GifErrorString(code).map { String(cString: $0) } ?? "unknown error"
        return "\(function) failed: \(text) (giflib error \(code))"
    }

    /// Lenient mode keeps what was decoded with a warning; strict mode (or nothing decoded yet) throws.
    private func damaged(_ message: String, partial: AnimationFrame? = nil) throws(CodecError) -> AnimationFrame? {
        finished = true
        if strict || (decoded == 0 && partial == nil) { throw .corrupt(codec: Self.name, message: message) }
        warnings.append(message)
        if partial != nil { decoded += 1 }
        return partial
    }

    func nextFrame() throws(CodecError) -> AnimationFrame? {
        guard !finished else { return nil }
        var control = GraphicsControlBlock(
            DisposalMode: DISPOSAL_UNSPECIFIED, UserInputFlag: false, DelayTime: 0, TransparentColor: NO_TRANSPARENT_COLOR)
        while true {
            var record = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &record) == GIF_OK else {
                // Ending right after a whole image without the trailer is common and harmless.
                if reader.atEnd, decoded > 0, decoded == frameCount { finished = true; return nil }
                return try damaged(Self.describe(gif.pointee.Error, "DGifGetRecordType") + " after \(decoded) frame(s)")
            }
            switch record {
            case TERMINATE_RECORD_TYPE:
                finished = true
                return nil
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(gif, &code, &block) == GIF_OK else {
                    return try damaged(Self.describe(gif.pointee.Error, "DGifGetExtension"))
                }
                if code == GRAPHICS_EXT_FUNC_CODE, let block, block[0] >= 4 {
                    _ = DGifExtensionToGCB(Int(block[0]), block + 1, &control)
                }
                while block != nil {
                    guard DGifGetExtensionNext(gif, &block) == GIF_OK else {
                        return try damaged(Self.describe(gif.pointee.Error, "DGifGetExtensionNext"))
                    }
                }
            case IMAGE_DESC_RECORD_TYPE:
                // The block scan announced frameCount frames; a stream that reads differently to
                // giflib (damage the scan stopped at) ends here rather than yield more.
                guard decoded < frameCount else {
                    return try damaged("giflib reads more images than the \(frameCount) the block scan found")
                }
                let descriptor = reader.position
                guard DGifGetImageDesc(gif) == GIF_OK else {
                    // giflib read the whole descriptor, then refused the LZW code size (9-11 is
                    // legal): this frame is ours to decode.
                    if let codeSize = refusedCodeSize(descriptor: descriptor) {
                        let lzw: GIFLZWDecoder
                        do { lzw = try GIFLZWDecoder(minimumCodeSize: codeSize, reader: reader) } catch {
                            return try damaged("\(error) in frame \(decoded + 1)")
                        }
                        return try drawFrame(control, lzw: lzw)
                    }
                    return try damaged(Self.describe(gif.pointee.Error, "DGifGetImageDesc"))
                }
                return try drawFrame(control, lzw: nil)
            default:
                return try damaged("unexpected GIF record type \(record.rawValue)")
            }
        }
    }

    /// The LZW minimum code size giflib just refused (above 8, which `DGifSetupDecompress`
    /// rejects), when the reader stands right after it: the descriptor at `descriptor` (9 bytes),
    /// its local colour table, then the size byte. Nil for any other failure.
    private func refusedCodeSize(descriptor: Int) -> Int? {
        guard let packed = reader.byte(at: descriptor + 8) else { return nil }
        let at = descriptor + 9 + GIFScan.colorTableSize(packed)
        guard reader.position == at + 1, let size = reader.byte(at: at), size > 8 else { return nil }
        return Int(size)
    }

    /// Draws the frame giflib's descriptor describes, its rows from giflib or, for a frame
    /// giflib refused, from `lzw`.
    private func drawFrame(_ control: GraphicsControlBlock, lzw: GIFLZWDecoder?) throws(CodecError) -> AnimationFrame? {
        applyPendingDisposal()
        let image = gif.pointee.Image
        let left = Int(image.Left), top = Int(image.Top), width = Int(image.Width), height = Int(image.Height)
        if control.DisposalMode == DISPOSE_PREVIOUS { saved = canvas }
        pendingDisposal = (control.DisposalMode, left, top, width, height)

        let (palette, paletteCount) = framePalette(image.ColorMap ?? gif.pointee.SColorMap)
        let painter = FramePainter(
            palette: palette, paletteCount: paletteCount, transparent: Int(control.TransparentColor),
            rowOrder: image.Interlace ? Self.interlacedRows(height) : nil, left: left, top: top,
            x0: max(0, left), x1: min(canvasWidth, left + width), canvasWidth: canvasWidth, canvasHeight: canvasHeight)
        let duration = Int(control.DelayTime) * 10
        let rowsNeeded = painter.rowsNeeded(width: width, height: height)
        // The budget was checked on the logical screen, but LZW cannot skip the part of a row
        // off the canvas: a frame wider (or, interlaced, taller) than the screen costs its own
        // width x the rows decoded. Up to 65535 x 65535 of them from a few MB of LZW data is a
        // CPU bomb, so that area is held to the same budget.
        if width * rowsNeeded > pixelBudget {
            throw .pixelBudgetExceeded(width: width, height: rowsNeeded, budget: pixelBudget)
        }
        let problem: String? =
            if let lzw {
                readRows(lzw, painter: painter, width: width, height: height, rowsNeeded: rowsNeeded)
            } else {
                readRowsFromGiflib(painter: painter, width: width, height: height, rowsNeeded: rowsNeeded)
            }
        if let problem {
            return try damaged(problem, partial: AnimationFrame(canvas: canvas, durationMilliseconds: duration))
        }
        decoded += 1
        return AnimationFrame(canvas: canvas, durationMilliseconds: duration)
    }

    /// The frame's colour table (its own, else the global one) as RGB triples, and its entry
    /// count; without any table (allowed by the format; browsers then show black or grey), a
    /// grey ramp, with a warning.
    private func framePalette(_ map: UnsafeMutablePointer<ColorMapObject>?) -> (rgb: [UInt8], count: Int) {
        var palette = [UInt8](repeating: 0, count: 256 * 3)
        guard let map, let colors = map.pointee.Colors else {
            for k in 0..<256 { palette[k * 3] = UInt8(k); palette[k * 3 + 1] = UInt8(k); palette[k * 3 + 2] = UInt8(k) }
            warnings.append("frame \(decoded + 1) has no colour table; indices shown as grey levels")
            return (palette, 256)
        }
        let count = Int(min(256, max(0, map.pointee.ColorCount)))
        for k in 0..<count {
            palette[k * 3] = colors[k].Red
            palette[k * 3 + 1] = colors[k].Green
            palette[k * 3 + 2] = colors[k].Blue
        }
        return (palette, count)
    }

    /// Reads a frame giflib refused with the project's own LZW decoder, painting each row;
    /// the problem, when the data ends or breaks first.
    private func readRows(_ decoder: GIFLZWDecoder, painter: FramePainter, width: Int, height: Int, rowsNeeded: Int)
        -> String?
    {
        var lzw = decoder
        var line = [UInt16](repeating: 0, count: max(1, width))
        for stored in 0..<rowsNeeded {
            do { try lzw.readLine(into: &line) } catch {
                return "\(error) in frame \(decoded + 1) at row \(stored) of \(height)"
                    + " (LZW code size above 8, decoded without giflib)"
            }
            painter.paint(line, stored: stored, onto: &canvas)
        }
        do { try lzw.skipToEnd() } catch {
            return "the LZW data of frame \(decoded + 1) runs past the end of the file"
        }
        return nil
    }

    /// Reads a frame's rows through giflib, painting each; the rest of its LZW data (rows that
    /// land off the canvas, an empty frame) is skipped undecoded. The problem, when giflib fails.
    private func readRowsFromGiflib(painter: FramePainter, width: Int, height: Int, rowsNeeded: Int) -> String? {
        var line = [GifPixelType](repeating: 0, count: max(1, width))
        for stored in 0..<rowsNeeded {
            let ok = line.withUnsafeMutableBufferPointer { DGifGetLine(gif, $0.baseAddress, Int32(width)) == GIF_OK }
            guard ok else {
                return Self.describe(gif.pointee.Error, "DGifGetLine") + " in frame \(decoded + 1) at row \(stored) of \(height)"
            }
            painter.paint(line, stored: stored, onto: &canvas)
        }
        if rowsNeeded < height || width == 0 || height == 0 {
            var block: UnsafeMutablePointer<GifByteType>?
            repeat {
                guard DGifGetCodeNext(gif, &block) == GIF_OK else {
                    return Self.describe(gif.pointee.Error, "DGifGetCodeNext")
                        + " skipping the off-canvas image data of frame \(decoded + 1)"
                }
            } while block != nil
        }
        return nil
    }

    private func applyPendingDisposal() {
        guard let disposal = pendingDisposal else { return }
        pendingDisposal = nil
        switch disposal.mode {
        case DISPOSE_BACKGROUND:
            let x0 = max(0, disposal.x), x1 = min(canvasWidth, disposal.x + disposal.width)
            let y0 = max(0, disposal.y), y1 = min(canvasHeight, disposal.y + disposal.height)
            guard x0 < x1, y0 < y1 else { return }
            let width = canvasWidth
            canvas.withUnsafeMutableBytes { pixels in
                for y in y0..<y1 {
                    let start = (y * width + x0) * 4
                    pixels[start..<(start + (x1 - x0) * 4)].update(repeating: 0)
                }
            }
        case DISPOSE_PREVIOUS:
            if let saved { canvas = saved }
            saved = nil
        default:
            break
        }
    }

    /// Canvas row of each stored row of an interlaced image (passes: every 8th from 0, every 8th
    /// from 4, every 4th from 2, every 2nd from 1).
    static func interlacedRows(_ height: Int) -> [Int] {
        var rows: [Int] = []
        rows.reserveCapacity(height)
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            var y = start
            while y < height { rows.append(y); y += step }
        }
        return rows
    }
}

/// The bytes giflib reads through `gifRead`, and how far it has read.
final class GIFReader {
    private let storage: [UInt8]
    private var offset = 0

    init(_ data: Data) { storage = [UInt8](data) }

    var atEnd: Bool { offset >= storage.count }

    /// Bytes read so far.
    var position: Int { offset }

    /// The byte at `index`, or nil past the end.
    func byte(at index: Int) -> UInt8? { index >= 0 && index < storage.count ? storage[index] : nil }

    /// The next byte, or nil at the end.
    func nextByte() -> UInt8? {
        guard offset < storage.count else { return nil }
        offset += 1
        return storage[offset - 1]
    }

    /// Skips `count` bytes; false (and at the end) when fewer are left.
    func skip(_ count: Int) -> Bool {
        guard count <= storage.count - offset else {
            offset = storage.count
            return false
        }
        offset += count
        return true
    }

    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R { storage.withUnsafeBufferPointer(body) }

    /// Copies up to `count` bytes into `destination`; returns how many (short at the end of the file).
    func read(into destination: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let n = max(0, min(count, storage.count - offset))
        guard n > 0 else { return 0 }
        storage.withUnsafeBufferPointer { destination.update(from: $0.baseAddress! + offset, count: n) }
        offset += n
        return n
    }
}

/// giflib's input function: reads from the `GIFReader` in `UserData`.
private func gifRead(_ gif: UnsafeMutablePointer<GifFileType>?, _ buffer: UnsafeMutablePointer<GifByteType>?, _ count: Int32)
    -> Int32
{
    guard let gif, let buffer, count > 0, let user = gif.pointee.UserData else { return 0 }
    let reader = Unmanaged<GIFReader>.fromOpaque(user).takeUnretainedValue()
    return Int32(reader.read(into: buffer, count: Int(count)))
}

/// Where one frame's decoded rows land on the canvas, and in which colours.
private struct FramePainter {
    /// The colour table as RGB triples, and how many entries it has.
    let palette: [UInt8]
    let paletteCount: Int
    /// The index drawn as nothing (the canvas shows through); out of range when none.
    let transparent: Int
    /// For an interlaced frame, the canvas row of each stored row; nil when stored in order.
    let rowOrder: [Int]?
    /// The frame's origin on the canvas (either may be negative or past the canvas).
    let left: Int, top: Int
    /// The frame's columns that are on the canvas.
    let x0: Int, x1: Int
    let canvasWidth: Int, canvasHeight: Int

    /// The stored rows worth decoding: up to the last one that lands on the canvas. The LZW data
    /// of the rest (and of an empty or wholly off-canvas frame) is skipped undecoded, so a small
    /// file declaring a 65535 x 65535 frame costs no more than its bytes.
    func rowsNeeded(width: Int, height: Int) -> Int {
        guard width > 0, x0 < x1 else { return 0 }
        for stored in stride(from: height - 1, through: 0, by: -1) where top + (rowOrder?[stored] ?? stored) < canvasHeight {
            return stored + 1
        }
        return 0
    }

    /// Paints one decoded row (palette indices, the frame's full width) onto `canvas`.
    func paint<Index: FixedWidthInteger>(_ line: [Index], stored: Int, onto canvas: inout PixelBuffer) {
        let y = top + (rowOrder?[stored] ?? stored)
        guard y >= 0, y < canvasHeight, x0 < x1 else { return }
        canvas.withUnsafeMutableBytes { pixels in
            var o = (y * canvasWidth + x0) * 4
            for x in x0..<x1 {
                let index = Int(line[x - left])
                if index != transparent, index < paletteCount {
                    pixels[o] = palette[index * 3]
                    pixels[o + 1] = palette[index * 3 + 1]
                    pixels[o + 2] = palette[index * 3 + 2]
                    pixels[o + 3] = 255
                }
                o += 4
            }
        }
    }
}
