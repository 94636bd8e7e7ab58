internal import CGIF
internal import CImageQuant
import Foundation

/// Writes an animated GIF frame by frame: a palette per frame (a local colour table) from
/// libimagequant, an earlier frame's kept when it serves this one as well (`GIFPalettes`),
/// alpha < 128 written as the transparent index, giflib (`EGifOpen`) writing into a buffer that
/// stops at `byteLimit`.
///
///     var encoder = try GIFEncoder(width: 320, height: 240, loopCount: 0)
///     try encoder.add(frame, durationMilliseconds: 100)    // frame: PixelBuffer, .rgba, 320x240
///     let gif = try encoder.finish()
///
/// - Frame differencing: only the rectangle that changed since the previous frame is written,
///   unchanged pixels inside it as the transparent index. A frame that turns opaque pixels
///   transparent makes the frame before it dispose to background (its rectangle grown to cover
///   them), so the decoded frames composite exactly as the source. One frame is held back to
///   choose that disposal: memory is three canvases plus one frame's indices.
/// - Delays are centiseconds with the rounding error carried to the next frame, at least 2 cs:
///   browsers and iOS show 0 and 1 cs as 10 cs, so a shorter delay would play slower, not faster.
/// - `loopCount` counts plays (0 forever); it is written as NETSCAPE2.0 repetitions (plays - 1),
///   and a loop count of 1 writes no loop extension (play once).
/// - A frame whose distinct colours fit the palette is written with exact colours; otherwise
///   libimagequant chooses `quality.maxColors` colours and dithers at `quality.dithering`.
package struct GIFEncoder {
    /// The most pixels a GIF frame may have: 2048 x 2048 (the default long side's square), the
    /// largest image libimagequant quantises in memory (its LIQ_HIGH_MEMORY_LIMIT of 64 MB over
    /// 16 bytes a pixel). Above it, it "conserves memory" row by row, and Debian 12's 2.17 then
    /// loses a row of 16 bytes a pixel at each quantise and remap (the conserving row is
    /// allocated again over the first; fixed upstream after 2.17): found by the engine fuzz
    /// with a long side of 2599. The animation path sizes its GIFs within it
    /// (`ImageProcessor.encodeAnimation`); `GIFPalettes` refuses a larger region.
    package static let largestFrame = 4_194_304

    /// Palette quantisation settings (libimagequant).
    package struct Quality: Sendable, Hashable {
        /// Most colours in a frame's palette (2...256), the transparent entry included.
        package var maxColors: Int
        /// libimagequant speed: 1 (slow, best) ... 10 (fast, rougher).
        package var speed: Int
        /// Floyd-Steinberg dithering level 0 (none) ... 1 (full).
        package var dithering: Float

        package init(maxColors: Int, speed: Int, dithering: Float) {
            self.maxColors = maxColors
            self.speed = speed
            self.dithering = dithering
        }
        /// 256 colours, speed 4, full dithering: the default.
        package static let standard = Quality(maxColors: 256, speed: 4, dithering: 1.0)
        /// 128 colours, speed 6, dithering 0.5: smaller files.
        package static let compact = Quality(maxColors: 128, speed: 6, dithering: 0.5)
        /// 64 colours, speed 8, no dithering (dither noise defeats frame differencing and LZW):
        /// the smallest files, for re-encodes that must shrink.
        package static let smallest = Quality(maxColors: 64, speed: 8, dithering: 0)
    }

    static let name = "giflib"

    package let width: Int
    package let height: Int
    private let quality: Quality
    private let writer: GIFWriter
    /// libimagequant palettes kept from frame to frame (`GIFPalettes`).
    private let palettes: GIFPalettes
    /// The frame held back until the next one shows which disposal it needs.
    private var pending: (pixels: PixelBuffer, duration: Int)?
    /// What the canvas shows after the last written frame and its disposal, in source colours.
    private var base: PixelBuffer
    private var written = 0
    private var elapsedMilliseconds = 0
    private var writtenCentiseconds = 0

    /// Starts a GIF of `width` x `height` (1...65535 each) and writes its header and loop extension.
    /// `palettes` are those an earlier encoder of the same animation kept (a retry at another
    /// size), or a new set.
    ///
    /// - Throws: `.invalidDimensions`, `.byteLimitExceeded`, or `.encodeFailed` with giflib's words.
    package init(
        width: Int, height: Int, loopCount: Int, quality: Quality = .standard, byteLimit: Int? = nil,
        palettes: GIFPalettes = GIFPalettes()
    ) throws(CodecError) {
        guard (1...65535).contains(width), (1...65535).contains(height) else {
            throw .invalidDimensions(width: width, height: height)
        }
        self.width = width
        self.height = height
        self.quality = quality
        self.palettes = palettes
        base = PixelBuffer(width: width, height: height, layout: .rgba)
        writer = try GIFWriter(byteLimit: byteLimit)
        let gif = writer.gif
        EGifSetGifVersion(gif, true)
        try writer.check(EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, nil), "EGifPutScreenDesc")
        if loopCount != 1 {
            let repetitions = loopCount <= 0 ? 0 : min(65535, loopCount - 1)
            try writer.check(EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE), "EGifPutExtensionLeader")
            try writer.check(EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0"), "EGifPutExtensionBlock")
            let loop: [UInt8] = [1, UInt8(repetitions & 0xFF), UInt8(repetitions >> 8)]
            try writer.check(EGifPutExtensionBlock(gif, 3, loop), "EGifPutExtensionBlock")
            try writer.check(EGifPutExtensionTrailer(gif), "EGifPutExtensionTrailer")
        }
    }

    /// Adds a frame: `.rgba` (or `.rgb`) pixels of the GIF's size, shown for `durationMilliseconds`.
    ///
    /// - Throws: `.invalidDimensions` for a frame of another size, `.byteLimitExceeded` as soon as
    ///   the output passes the byte limit, `.encodeFailed` when libimagequant or giflib fail.
    package mutating func add(_ frame: PixelBuffer, durationMilliseconds: Int) throws(CodecError) {
        guard frame.width == width, frame.height == height, frame.layout != .gray || true else {
            throw .invalidDimensions(width: frame.width, height: frame.height)
        }
        let rgba = Self.rgba(frame)
        if let pending { try write(pending.pixels, duration: pending.duration, next: rgba) }
        pending = (rgba, max(0, durationMilliseconds))
    }

    /// Writes the held-back frame and the trailer; returns the GIF.
    ///
    /// - Throws: `.encodeFailed` when no frame was added, `.byteLimitExceeded`, or giflib's failure.
    package mutating func finish() throws(CodecError) -> Data {
        guard let pending else {
            throw .encodeFailed(codec: Self.name, message: "no frame was added; a GIF needs at least one image")
        }
        try write(pending.pixels, duration: pending.duration, next: nil)
        self.pending = nil
        return try writer.close()
    }

    /// The number of bytes written so far.
    package var bytesWritten: Int { writer.output.count }

    // MARK: - One frame

    private mutating func write(_ frame: PixelBuffer, duration: Int, next: PixelBuffer?) throws(CodecError) {
        // Delay: centiseconds, rounding error carried, at least 2.
        elapsedMilliseconds += duration
        let target = (elapsedMilliseconds + 5) / 10
        let delay = min(65535, max(2, target - writtenCentiseconds))
        writtenCentiseconds += delay

        let plan = Self.plan(frame: frame, base: base, next: next, first: written == 0)
        let rect = plan.rect
        let region = changedRegion(of: frame, in: rect)
        let indexed = try Self.quantize(
            region, width: rect.width, height: rect.height, quality: quality, palettes: palettes)
        try putControl(clears: plan.clears, delay: delay, transparent: indexed.transparent)
        try putImage(indexed, in: rect)

        // The canvas now shows `frame`; a background disposal then clears the rectangle.
        base = frame
        if plan.clears {
            let rowBytes = rect.width * 4
            let canvasWidth = width
            base.withUnsafeMutableBytes { pixels in
                for y in rect.y..<(rect.y + rect.height) {
                    let start = (y * canvasWidth + rect.x) * 4
                    pixels[start..<(start + rowBytes)].update(repeating: 0)
                }
            }
        }
        written += 1
    }

    /// The rectangle's pixels: changed opaque pixels in colour, everything else transparent (it
    /// shows what is under it).
    private func changedRegion(of frame: PixelBuffer, in rect: Rect) -> [UInt8] {
        var region = [UInt8](repeating: 0, count: rect.width * rect.height * 4)
        let width = width
        frame.withUnsafeBytes { src in
            base.withUnsafeBytes { old in
                for y in 0..<rect.height {
                    var s = ((rect.y + y) * width + rect.x) * 4
                    var d = y * rect.width * 4
                    for _ in 0..<rect.width {
                        if src[s + 3] >= 128, old[s + 3] < 128 || src[s] != old[s] || src[s + 1] != old[s + 1]
                            || src[s + 2] != old[s + 2]
                        {
                            region[d] = src[s]
                            region[d + 1] = src[s + 1]
                            region[d + 2] = src[s + 2]
                            region[d + 3] = 255
                        }
                        s += 4
                        d += 4
                    }
                }
            }
        }
        return region
    }

    /// The frame's graphic control extension: its disposal, delay and transparent index.
    private mutating func putControl(clears: Bool, delay: Int, transparent: Int?) throws(CodecError) {
        var control = GraphicsControlBlock(
            DisposalMode: clears ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT, UserInputFlag: false,
            DelayTime: Int32(delay), TransparentColor: transparent.map(Int32.init) ?? NO_TRANSPARENT_COLOR)
        var extensionBytes = [GifByteType](repeating: 0, count: 4)
        let length = EGifGCBToExtension(&control, &extensionBytes)
        try writer.check(
            EGifPutExtension(writer.gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), extensionBytes), "EGifPutExtension")
    }

    /// The image descriptor with its local colour table (padded to a power of two), then the
    /// rectangle's rows of palette indices.
    private mutating func putImage(
        _ indexed: (indices: [UInt8], palette: [(UInt8, UInt8, UInt8)], transparent: Int?), in rect: Rect
    ) throws(CodecError) {
        let gif = writer.gif
        var colors = indexed.palette.map { GifColorType(Red: $0.0, Green: $0.1, Blue: $0.2) }
        var size = 2
        while size < colors.count { size *= 2 }
        colors += [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size - colors.count)
        guard let map = GifMakeMapObject(Int32(size), &colors) else {
            throw .encodeFailed(codec: Self.name, message: "GifMakeMapObject could not make a \(size)-colour table")
        }
        defer { GifFreeMapObject(map) }
        try writer.check(
            EGifPutImageDesc(gif, Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height), false, map),
            "EGifPutImageDesc")
        var indices = indexed.indices
        for y in 0..<rect.height {
            let ok = indices.withUnsafeMutableBufferPointer {
                EGifPutLine(gif, $0.baseAddress! + y * rect.width, Int32(rect.width))
            }
            try writer.check(ok, "EGifPutLine")
        }
    }

    struct Rect: Equatable {
        var x: Int, y: Int, width: Int, height: Int
    }

    /// The rectangle to write and whether the frame must dispose to background: the bounding box
    /// of the pixels that differ from `base` (alpha < 128 counts as transparent, whatever its
    /// colour), grown to cover the pixels `next` turns transparent when there are any. The first
    /// frame covers the canvas; an unchanged frame writes one transparent pixel.
    static func plan(frame: PixelBuffer, base: PixelBuffer, next: PixelBuffer?, first: Bool) -> (rect: Rect, clears: Bool) {
        let width = frame.width, height = frame.height
        var minX = width, minY = height, maxX = -1, maxY = -1
        var clears = false
        frame.withUnsafeBytes { src in
            base.withUnsafeBytes { old in
                let nextBytes = next?.bytes
                for y in 0..<height {
                    var o = y * width * 4
                    for x in 0..<width {
                        let opaque = src[o + 3] >= 128
                        var mark =
                            opaque != (old[o + 3] >= 128)
                            || (opaque && (src[o] != old[o] || src[o + 1] != old[o + 1] || src[o + 2] != old[o + 2]))
                        if opaque, let nextBytes, nextBytes[o + 3] < 128 {
                            clears = true
                            mark = true
                        }
                        if mark {
                            if x < minX { minX = x }
                            if x > maxX { maxX = x }
                            if y < minY { minY = y }
                            if y > maxY { maxY = y }
                        }
                        o += 4
                    }
                }
            }
        }
        if first { return (Rect(x: 0, y: 0, width: width, height: height), clears) }
        guard maxX >= 0 else { return (Rect(x: 0, y: 0, width: 1, height: 1), false) }
        return (Rect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1), clears)
    }

    /// Palette indices for `region` (RGBA, alpha 0 or 255), the palette, and the transparent index:
    /// its exact colours when they fit, else `palettes`' (a kept palette or a fresh one).
    static func quantize(_ region: [UInt8], width: Int, height: Int, quality: Quality, palettes: GIFPalettes)
        throws(CodecError) -> (
        indices: [UInt8], palette: [(UInt8, UInt8, UInt8)], transparent: Int?
    ) {
        let count = width * height
        let limit = max(2, min(256, quality.maxColors))
        // Exact colours when they fit: no quantisation error, no dither noise.
        var lookup: [UInt32: UInt8] = [:]
        var palette: [(UInt8, UInt8, UInt8)] = []
        var transparent: Int?
        var indices = [UInt8](repeating: 0, count: count)
        var exact = true
        for p in 0..<count {
            let o = p * 4
            if region[o + 3] == 0 {
                if transparent == nil {
                    // The transparent entry takes a palette slot like a colour: a frame whose
                    // opaque pixels already fill the palette goes to libimagequant instead.
                    guard palette.count < limit else { exact = false; break }
                    transparent = palette.count
                    palette.append((0, 0, 0))
                }
                indices[p] = UInt8(transparent!)
                continue
            }
            let key = UInt32(region[o]) << 16 | UInt32(region[o + 1]) << 8 | UInt32(region[o + 2])
            if let index = lookup[key] {
                indices[p] = index
            } else {
                guard palette.count < limit else { exact = false; break }
                let index = UInt8(palette.count)
                lookup[key] = index
                palette.append((region[o], region[o + 1], region[o + 2]))
                indices[p] = index
            }
        }
        if exact { return (indices, palette, transparent) }
        return try palettes.indices(for: region, width: width, height: height, quality: quality)
    }

    /// `.rgba` pixels with a tight stride (an `.rgb` or `.gray` frame gets opaque alpha).
    static func rgba(_ frame: PixelBuffer) -> PixelBuffer {
        if frame.layout == .rgba, frame.stride == frame.width * 4 { return frame }
        var out = PixelBuffer(width: frame.width, height: frame.height, layout: .rgba)
        let channels = frame.layout.channels
        out.withUnsafeMutableBytes { dst in
            frame.withUnsafeBytes { src in
                for y in 0..<frame.height {
                    for x in 0..<frame.width {
                        let s = y * frame.stride + x * channels
                        let d = (y * frame.width + x) * 4
                        switch frame.layout {
                        case .gray: dst[d] = src[s]; dst[d + 1] = src[s]; dst[d + 2] = src[s]; dst[d + 3] = 255
                        case .rgb: dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]; dst[d + 3] = 255
                        case .rgba:
                            dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]; dst[d + 3] = src[s + 3]
                        }
                    }
                }
            }
        }
        return out
    }
}

/// Owns the giflib encoder handle and the buffer its output function fills.
final class GIFWriter {
    private(set) var gif: UnsafeMutablePointer<GifFileType>!
    var output: [UInt8] = []
    let byteLimit: Int?
    var overLimit = false

    init(byteLimit: Int?) throws(CodecError) {
        self.byteLimit = byteLimit
        var error: Int32 = 0
        guard let made = EGifOpen(Unmanaged.passUnretained(self).toOpaque(), gifWrite, &error) else {
            throw .encodeFailed(codec: GIFEncoder.name, message: GIFAnimationSource.describe(error, "EGifOpen"))
        }
        gif = made
    }

    deinit {
        if let gif {
            var error: Int32 = 0
            _ = EGifCloseFile(gif, &error)
        }
    }

    /// Throws for a giflib call that returned `GIF_ERROR`: the byte limit, or giflib's own error.
    func check(_ status: Int32, _ function: String) throws(CodecError) {
        guard status != GIF_OK else { return }
        if overLimit, let byteLimit { throw .byteLimitExceeded(codec: GIFEncoder.name, limit: byteLimit) }
        throw .encodeFailed(codec: GIFEncoder.name, message: GIFAnimationSource.describe(gif.pointee.Error, function))
    }

    /// Writes the trailer and frees the handle; returns the file.
    func close() throws(CodecError) -> Data {
        var error: Int32 = 0
        let status = EGifCloseFile(gif, &error)
        gif = nil
        guard status == GIF_OK else {
            if overLimit, let byteLimit { throw .byteLimitExceeded(codec: GIFEncoder.name, limit: byteLimit) }
            throw .encodeFailed(codec: GIFEncoder.name, message: GIFAnimationSource.describe(error, "EGifCloseFile"))
        }
        return Data(output)
    }

    func append(_ bytes: UnsafePointer<UInt8>, count: Int) -> Int {
        if let byteLimit, output.count + count > byteLimit {
            overLimit = true
            return 0
        }
        output.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
        return count
    }
}

/// giflib's output function: appends to the `GIFWriter` in `UserData`.
private func gifWrite(_ gif: UnsafeMutablePointer<GifFileType>?, _ bytes: UnsafePointer<GifByteType>?, _ count: Int32)
    -> Int32
{
    guard let gif, let bytes, count > 0, let user = gif.pointee.UserData else { return 0 }
    let writer = Unmanaged<GIFWriter>.fromOpaque(user).takeUnretainedValue()
    return Int32(writer.append(bytes, count: Int(count)))
}
