internal import CGIF
import Foundation
import ImageCodecs
import MediaTypes
import TestSupport
import Testing

/// giflib's own high-level reader (`DGifSlurp`, every frame in memory), as a check on the
/// encoder that does not go through ImageCodecs' frame decoder.
enum GiflibSlurp {
    struct Result {
        var frames: Int
        var delays: [Int]
        var disposals: [Int]
        var repetitions: Int?
        var rects: [(x: Int, y: Int, width: Int, height: Int)]
    }

    final class Reader {
        let bytes: [UInt8]
        var offset = 0
        init(_ data: Data) { bytes = [UInt8](data) }
    }

    static func read(_ data: Data) throws -> Result {
        let reader = Reader(data)
        var error: Int32 = 0
        let input: InputFunc = { gif, buffer, count in
            let reader = Unmanaged<Reader>.fromOpaque(gif!.pointee.UserData!).takeUnretainedValue()
            let n = max(0, min(Int(count), reader.bytes.count - reader.offset))
            for k in 0..<n { buffer![k] = reader.bytes[reader.offset + k] }
            reader.offset += n
            return Int32(n)
        }
        let gif = try #require(withExtendedLifetime(reader) { DGifOpen(Unmanaged.passUnretained(reader).toOpaque(), input, &error) })
        defer { DGifCloseFile(gif, &error) }
        try #require(withExtendedLifetime(reader) { DGifSlurp(gif) } == GIF_OK, "DGifSlurp: \(gif.pointee.Error)")
        var result = Result(frames: Int(gif.pointee.ImageCount), delays: [], disposals: [], repetitions: nil, rects: [])
        for i in 0..<result.frames {
            var control = GraphicsControlBlock()
            if DGifSavedExtensionToGCB(gif, Int32(i), &control) == GIF_OK {
                result.delays.append(Int(control.DelayTime))
                result.disposals.append(Int(control.DisposalMode))
            }
            let image = gif.pointee.SavedImages[i]
            result.rects.append((Int(image.ImageDesc.Left), Int(image.ImageDesc.Top), Int(image.ImageDesc.Width), Int(image.ImageDesc.Height)))
            for e in 0..<Int(image.ExtensionBlockCount) {
                let block = image.ExtensionBlocks[e]
                guard block.Function == APPLICATION_EXT_FUNC_CODE, block.ByteCount == 11,
                    String(decoding: UnsafeBufferPointer(start: block.Bytes, count: 11), as: UTF8.self) == "NETSCAPE2.0",
                    e + 1 < Int(image.ExtensionBlockCount)
                else { continue }
                let sub = image.ExtensionBlocks[e + 1]
                if sub.ByteCount >= 3, sub.Bytes[0] == 1 { result.repetitions = Int(sub.Bytes[1]) | Int(sub.Bytes[2]) << 8 }
            }
        }
        return result
    }
}

/// The GIF encoder: round trips through ImageCodecs' decoder and giflib's `DGifSlurp`.
@Suite struct GIFEncoderTests {
    /// Frames of a moving, partly transparent sprite over a flat background that disappears in
    /// frame 3: exact colours (under 256), so the round trip must be exact.
    static func spriteFrames(width: Int = 64, height: Int = 48, count: Int = 6) -> [PixelBuffer] {
        (0..<count).map { i in
            var frame = PixelBuffer(width: width, height: height, layout: .rgba)
            for y in 0..<height {
                for x in 0..<width {
                    let background = i == 3 ? false : (x + y) % 7 != 0   // holes, and a whole transparent frame area
                    if background, y < height / 2 {
                        frame[x, y, 0] = 30; frame[x, y, 1] = 60; frame[x, y, 2] = 90; frame[x, y, 3] = 255
                    }
                    let sx = 4 + i * 8
                    if x >= sx, x < sx + 12, y >= 10, y < 30 {
                        frame[x, y, 0] = UInt8(200 + i); frame[x, y, 1] = 40; frame[x, y, 2] = UInt8(x * 3); frame[x, y, 3] = 255
                    }
                }
            }
            return frame
        }
    }

    static func encode(
        _ frames: [PixelBuffer], durations: [Int], loop: Int = 0, quality: GIFEncoder.Quality = .standard
    ) throws -> Data {
        var encoder = try GIFEncoder(width: frames[0].width, height: frames[0].height, loopCount: loop, quality: quality)
        for (frame, duration) in zip(frames, durations) { try encoder.add(frame, durationMilliseconds: duration) }
        return try encoder.finish()
    }

    /// Transparent pixels compare equal whatever colour they carry; alpha < 128 counts as transparent.
    static func normalised(_ buffer: PixelBuffer) -> PixelBuffer {
        var out = buffer
        for i in stride(from: 0, to: out.bytes.count, by: 4) {
            if out.bytes[i + 3] < 128 { out.bytes[i] = 0; out.bytes[i + 1] = 0; out.bytes[i + 2] = 0; out.bytes[i + 3] = 0 }
            else { out.bytes[i + 3] = 255 }
        }
        return out
    }

    @Test func exactColoursRoundTripExactly() throws {
        let frames = Self.spriteFrames()
        let durations = [100, 50, 200, 70, 30, 1000]
        let gif = try Self.encode(frames, durations: durations, loop: 3)
        let decoded = try decodeAllFrames(gif, format: .gif)
        #expect(decoded.count == frames.count && decoded.frames.count == frames.count)
        #expect(decoded.loop == 3)
        #expect(decoded.frames.map(\.durationMilliseconds) == durations)
        for (i, (source, frame)) in zip(frames, decoded.frames).enumerated() {
            #expect(Self.normalised(frame.canvas) == Self.normalised(source), "frame \(i)")
        }
        let slurped = try GiflibSlurp.read(gif)
        #expect(slurped.frames == frames.count)
        #expect(slurped.delays == durations.map { $0 / 10 })
        #expect(slurped.repetitions == 2)
        // Differencing: later frames write only the changed rectangle; the frame before the
        // transparent frame 3 disposes to background.
        #expect(slurped.rects.dropFirst().allSatisfy { $0.width * $0.height < 64 * 48 })
        #expect(slurped.disposals[2] == 2)
    }

    @Test func photoFramesRoundTripClose() throws {
        let frames = (0..<4).map { i in
            var frame = Pixels.pattern(width: 96, height: 64, layout: .rgba)
            for y in 0..<64 { for x in 0..<96 { frame[x, y, 3] = 255; if x < 10 + i * 10 { frame[x, y, 0] = UInt8((x * 7 + y * 3 + i * 40) % 256) } } }
            return frame
        }
        let gif = try Self.encode(frames, durations: [40, 40, 40, 40], loop: 0)
        let decoded = try decodeAllFrames(gif, format: .gif)
        #expect(decoded.frames.count == 4 && decoded.loop == 0)
        for (source, frame) in zip(frames, decoded.frames) {
            let error = try #require(Pixels.meanAbsoluteError(frame.canvas, source))
            #expect(error < 4, "mean abs error \(error) after quantisation")
        }
        let slurped = try GiflibSlurp.read(gif)
        #expect(slurped.frames == 4 && slurped.delays == [4, 4, 4, 4] && slurped.repetitions == 0)
    }

    @Test func delaysCarryRoundingErrorAndKeepTwoCentisecondMinimum() throws {
        let frames = Array(repeating: Self.spriteFrames(count: 1)[0], count: 5)
        let gif = try Self.encode(frames, durations: [33, 33, 34, 0, 10], loop: 1)
        let slurped = try GiflibSlurp.read(gif)
        #expect(slurped.delays == [3, 4, 3, 2, 2])
        #expect(slurped.repetitions == nil)   // one play: no loop extension
        let decoded = try decodeAllFrames(gif, format: .gif)
        #expect(decoded.loop == 1 && decoded.frames.count == 5)
    }

    @Test func byteLimitStopsEarly() throws {
        let frames = (0..<20).map { i in
            var frame = Pixels.pattern(width: 128, height: 128, layout: .rgba)
            for p in stride(from: 0, to: frame.bytes.count, by: 4) { frame.bytes[p] &+= UInt8(i * 13); frame.bytes[p + 3] = 255 }
            return frame
        }
        var encoder = try GIFEncoder(width: 128, height: 128, loopCount: 0, byteLimit: 20_000)
        var added = 0
        #expect(throws: CodecError.byteLimitExceeded(codec: "giflib", limit: 20_000)) {
            for frame in frames {
                try encoder.add(frame, durationMilliseconds: 100)
                added += 1
            }
            _ = try encoder.finish()
        }
        #expect(added < frames.count)
        #expect(encoder.bytesWritten <= 20_000)
    }

    /// A frame whose opaque pixels use all 256 colours before its first transparent pixel: the
    /// transparent entry would be the 257th, so the frame is quantised instead (this trapped in
    /// `quantize` with "Not enough bits to represent the passed value"). The colours come first
    /// in one frame and after the transparency in the next, both orders.
    @Test(arguments: [true, false]) func fullPaletteThenTransparentPixel(coloursFirst: Bool) throws {
        let (width, height) = (32, 10)
        var frame = PixelBuffer(width: width, height: height, layout: .rgba)
        for p in 0..<(width * height) {
            let k = coloursFirst ? p : p - 64
            guard k >= 0, k < 256 else { continue }   // the rest stays transparent (alpha 0)
            let (x, y) = (p % width, p / width)
            frame[x, y, 0] = UInt8(k); frame[x, y, 1] = UInt8(255 - k); frame[x, y, 2] = UInt8((k * 7) & 255); frame[x, y, 3] = 255
        }
        let gif = try Self.encode([frame, frame], durations: [100, 100])
        let decoded = try decodeAllFrames(gif, format: .gif)
        #expect(decoded.frames.count == 2)
        for output in decoded.frames {
            // Transparency kept exactly; colours within quantisation error.
            for p in 0..<(width * height) {
                let (x, y) = (p % width, p / width)
                #expect((output.canvas[x, y, 3] >= 128) == (frame[x, y, 3] == 255), "alpha at \(x),\(y)")
            }
            let error = try #require(Pixels.meanAbsoluteError(Self.normalised(output.canvas), Self.normalised(frame)))
            #expect(error < 4, "mean abs error \(error) after quantisation")
        }
    }

    @Test func refusesBadSizes() throws {
        #expect(throws: CodecError.invalidDimensions(width: 0, height: 10)) {
            _ = try GIFEncoder(width: 0, height: 10, loopCount: 0)
        }
        var encoder = try GIFEncoder(width: 4, height: 4, loopCount: 0)
        #expect(throws: CodecError.invalidDimensions(width: 5, height: 4)) {
            try encoder.add(PixelBuffer(width: 5, height: 4, layout: .rgba), durationMilliseconds: 10)
        }
        #expect(throws: CodecError.self) { _ = try encoder.finish() }
    }

    /// Animated WebP → GIF, the conversion the engine makes: same frame count, durations, loop; close pixels.
    @Test func animatedWebPToGIF() throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent("conformance/webp/misc/sharp_rotating-squares_animated.webp"))
        let source = try decodeAllFrames(data, format: .webp)
        let gif = try Self.encode(source.frames.map(\.canvas), durations: source.frames.map(\.durationMilliseconds), loop: source.loop)
        let decoded = try decodeAllFrames(gif, format: .gif)
        #expect(decoded.frames.count == source.frames.count)
        #expect(decoded.frames.map(\.durationMilliseconds) == source.frames.map(\.durationMilliseconds))
        #expect(decoded.loop == source.loop)
        for (a, b) in zip(source.frames, decoded.frames) {
            let error = try #require(Pixels.meanAbsoluteError(Self.normalised(a.canvas), Self.normalised(b.canvas)))
            #expect(error < 4, "mean abs error \(error)")
        }
        #expect(try GiflibSlurp.read(gif).frames == source.frames.count)
    }
}
