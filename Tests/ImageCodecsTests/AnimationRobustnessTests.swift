import Foundation
import ImageCodecs
import MediaTypes
import TestSupport
import Testing

/// Truncated and bit-flipped copies of the animated fixtures through the frame decoders: every
/// copy ends in frames or a `CodecError`, quickly; lenient mode keeps the frames before a cut.
@Suite struct AnimationRobustnessTests {
    @Test(arguments: AnimationReference.all)
    func damagedCopiesDecodeOrFailCleanly(_ reference: AnimationReference) throws {
        let whole = [UInt8](try Data(contentsOf: Corpus.testImages.appendingPathComponent(reference.file)))
        var rng = SplitMix64(seed: TestSeed.value(default: 0xA11A, for: "animation damage \(reference.file)"))
        var copies: [(String, [UInt8])] = [5, 15, 30, 45, 60, 75, 90, 97, 99].map {
            ("cut at \($0)%", Array(whole.prefix(whole.count * $0 / 100)))
        }
        for n in 0..<20 {
            var copy = whole
            for k in 0..<Int.random(in: 1...8, using: &rng) {
                let limit = k % 2 == 0 ? min(copy.count, 1024) : copy.count
                copy[Int.random(in: 0..<limit, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            copies.append(("flip #\(n)", copy))
        }
        var decodedSome = 0
        for (label, copy) in copies {
            for strict in [false, true] {
                let clock = ContinuousClock()
                let started = clock.now
                do {
                    let result = try decodeAllFrames(Data(copy), format: reference.format, options: DecodeOptions(strict: strict))
                    #expect(result.frames.count <= result.count, "\(label): more frames than announced")
                    #expect(result.frames.allSatisfy { $0.canvas.width == result.width && $0.canvas.height == result.height })
                    if !strict, !result.frames.isEmpty { decodedSome += 1 }
                } catch {
                    #expect(error is CodecError, "\(label): \(error)")
                }
                // A hang guard, not a speed test: alone a copy takes well under a second (debug build),
                // but the whole suite on a shared 2-core machine has stretched one to 24 s.
                #expect(clock.now - started < .seconds(120), "\(label) strict=\(strict) took too long")
            }
        }
        // Cuts late in the file keep frames in lenient mode (GIF; libwebp's demuxer needs the whole RIFF).
        if reference.format == .gif, reference.frames > 1 { #expect(decodedSome > 0) }
    }

    /// Inputs the `gif` and `webpanim` fuzz harnesses found failing (`TestImages/regressions/`),
    /// replayed lenient and strict: frames or a `CodecError`, never more frames than announced.
    @Test(arguments: FuzzRegressionTests.files("gif") + FuzzRegressionTests.files("webpanim"))
    func fuzzRegressionsDecodeWithinTheAnnouncedFrames(_ file: URL) throws {
        let format: MediaFormat = file.pathExtension == "gif" ? .gif : .webp
        let data = try Data(contentsOf: file)
        for strict in [false, true] {
            do {
                let result = try decodeAllFrames(data, format: format, options: DecodeOptions(strict: strict))
                #expect(result.frames.count <= result.count, "\(file.lastPathComponent) strict=\(strict)")
                #expect(result.frames.allSatisfy { $0.canvas.width == result.width && $0.canvas.height == result.height })
            } catch {
                #expect(error is CodecError, "\(file.lastPathComponent): \(error)")
            }
        }
    }

    @Test func theGIFRegressionFolderHoldsTheFoundInputs() {
        #expect(FuzzRegressionTests.files("gif").map(\.lastPathComponent).contains("more-frames-than-scanned-03c3de78.gif"))
    }

    /// Frames whose rows never reach the canvas (empty, or below it) have their LZW data skipped,
    /// and the stream stays in step: the frame after them is read and drawn.
    @Test func emptyAndOffCanvasFramesAreSkippedInStep() throws {
        // 2 x 2 canvas, global table white/black; 1 x 1 images whose LZW data ("02 02 44 01 00")
        // holds one pixel.
        func image(left: UInt8, top: UInt8, width: UInt8, height: UInt8) -> [UInt8] {
            [0x2C, left, 0, top, 0, width, 0, height, 0, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00]
        }
        let header: [UInt8] = Array("GIF89a".utf8) + [2, 0, 2, 0, 0x80, 0, 0, 0xFF, 0xFF, 0xFF, 0, 0, 0]
        let gif =
            header + image(left: 0, top: 0, width: 1, height: 1) + image(left: 0, top: 0, width: 1, height: 0)
            + image(left: 0, top: 200, width: 1, height: 1) + image(left: 1, top: 1, width: 1, height: 1) + [0x3B]
        for strict in [false, true] {
            let result = try decodeAllFrames(Data(gif), format: .gif, options: DecodeOptions(strict: strict))
            #expect(result.count == 4 && result.frames.count == 4 && result.warnings.isEmpty)
            guard result.frames.count == 4 else { continue }
            let alpha = result.frames.map { frame in stride(from: 3, to: 16, by: 4).map { frame.canvas.bytes[$0] } }
            #expect(alpha[0] == [255, 0, 0, 0])
            #expect(alpha[1] == alpha[0] && alpha[2] == alpha[0])
            #expect(alpha[3] == [255, 0, 0, 255])
        }
    }
}
