#if FUZZING
    import Foundation
    import ImageCodecs
    import MediaTypes

    /// Every frame of an animation through `ImageCodecs.withAnimation` under a 1 MP canvas budget,
    /// lenient then strict; at most 300 frames so one input stays fast.
    func decodeAnimation(_ bytes: [UInt8], format: MediaFormat) {
        let data = Data(bytes)
        for strict in [false, true] {
            let options = DecodeOptions(pixelBudget: 1_000_000, strict: strict)
            _ = try? ImageCodecs.withAnimation(data, format: format, options: options) { source in
                var count = 0
                while count < 300, let frame = try source.nextFrame() {
                    precondition(frame.canvas.width == source.canvasWidth && frame.canvas.height == source.canvasHeight)
                    count += 1
                }
                // Lenient mode never yields more frames than the container announced.
                precondition(count <= source.frameCount || strict)
            }
        }
    }

    /// The GIF block walker (sniffing) and the full frame decoder: every input is made to start
    /// like a GIF, so the fuzzer spends its time in the logical screen descriptor, the
    /// extensions, the image descriptors and the LZW data.
    let gifHarness = Harness(name: "gif") { bytes in
        let magic: [UInt8] = Array("GIF89a".utf8)
        let input = bytes.starts(with: Array("GIF8".utf8)) ? bytes : magic + bytes
        _ = try? Sniffer.sniff(input)
        decodeAnimation(input, format: .gif)
    }

    /// Animated (and still) WebP through `WebPAnimDecoder`.
    let webpAnimationHarness = Harness(name: "webpanim") { decodeAnimation($0, format: .webp) }

    /// GIF encoder round trip: the input picks a size (1...48 x 1...48), 1...4 frames, durations
    /// (at least 20 ms, so no minimum applies) and a loop count, and gives the pixels; the GIF written must decode to the same frame
    /// count, delays and loop count, and exactly the same pixels when a frame has few colours.
    let gifEncoderHarness = Harness(name: "gifenc") { bytes in
        guard bytes.count >= 6 else { return }
        let width = Int(bytes[0] % 48) + 1, height = Int(bytes[1] % 48) + 1
        let frames = Int(bytes[2] % 4) + 1, loop = Int(bytes[3] % 4)
        let fewColours = bytes[4] & 1 == 0
        var pixels = Array(bytes.dropFirst(6))
        if pixels.isEmpty { pixels = [0] }
        var encoder: GIFEncoder
        do { encoder = try GIFEncoder(width: width, height: height, loopCount: loop) } catch { fatalError("\(error)") }
        var sources: [PixelBuffer] = []
        var k = 0
        for f in 0..<frames {
            var frame = PixelBuffer(width: width, height: height, layout: .rgba)
            for i in 0..<(width * height * 4) {
                var v = pixels[k % pixels.count]
                if fewColours { v = (v & 0xC0) | (v >> 6) * 0x15 }   // 4 levels per channel: at most 64 colours
                if i % 4 == 3 { v = v >= 128 ? 255 : 0 }
                frame.bytes[i] = v
                k += 1
            }
            if k >= pixels.count { k = f * 7 }
            sources.append(frame)
            do { try encoder.add(frame, durationMilliseconds: (Int(bytes[5]) + 2) * 10 + f * 30) } catch { fatalError("add: \(error)") }
        }
        let gif: Data
        do { gif = try encoder.finish() } catch { fatalError("finish: \(error)") }
        do {
            try ImageCodecs.withAnimation(gif, format: .gif) { source in
                precondition(source.frameCount == frames && source.loopCount == loop)
                var f = 0
                while let frame = try source.nextFrame() {
                    precondition(frame.durationMilliseconds == (Int(bytes[5]) + 2) * 10 + f * 30)
                    if fewColours {
                        for p in stride(from: 0, to: frame.canvas.bytes.count, by: 4) {
                            let a = frame.canvas.bytes[p + 3], b = sources[f].bytes[p + 3]
                            precondition(a == b && (a == 0 || frame.canvas.bytes[p..<(p + 3)] == sources[f].bytes[p..<(p + 3)]))
                        }
                    }
                    f += 1
                }
                precondition(f == frames && source.warnings.isEmpty)
            }
        } catch { fatalError("decoding our own GIF: \(error)") }
    }
#endif
