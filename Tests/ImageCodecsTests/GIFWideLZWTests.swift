import Foundation
import ImageCodecs
import MediaTypes
import TestSupport
import Testing

/// GIF frames whose LZW minimum code size is above 8 (legal up to 11): giflib refuses them, so
/// `GIFLZWDecoder` decodes them; the fixture (TestImages/codecs/make-gif-wide-lzw.py) has frames
/// of code size 9, 8 and 11 (the last interlaced), compared with Pillow's decode pixel for pixel.
@Suite struct GIFWideLZWTests {
    static let file = "codecs/gif_lzw_code_size_9_11.gif"

    static func data() throws -> Data {
        try Data(contentsOf: Corpus.testImages.appendingPathComponent(file))
    }

    @Test func framesMatchPillow() throws {
        let decoded = try decodeAllFrames(try Self.data(), format: .gif, options: DecodeOptions(strict: true))
        #expect(decoded.width == 64 && decoded.height == 48 && decoded.count == 3)
        #expect(decoded.frames.count == 3)
        #expect(decoded.warnings.isEmpty, "\(decoded.warnings)")
        for (n, frame) in decoded.frames.enumerated() {
            let url = Corpus.testImages.appendingPathComponent("codecs/gif_lzw_code_size_9_11_frame\(n + 1).png")
            let reference = try PNGCodec.decode(try Data(contentsOf: url), options: DecodeOptions()).pixels
            #expect(reference.layout == .rgba)
            let error = try #require(Pixels.meanAbsoluteError(frame.canvas, reference))
            #expect(error == 0, "frame \(n + 1): mean absolute error \(error)")
        }
    }

    /// Cut inside the code-size-9 frame: lenient keeps nothing to show, so both modes throw
    /// `corrupt`; cut inside the third (code size 11) frame: lenient keeps the frames before with
    /// a warning, strict throws. Never a read past the end.
    @Test func truncatedWideFramesAreDamage() throws {
        let whole = [UInt8](try Self.data())
        for cut in stride(from: 800, to: whole.count - 1, by: 97) {
            let copy = Data(whole.prefix(cut))
            #expect(throws: CodecError.self) {
                try decodeAllFrames(copy, format: .gif, options: DecodeOptions(strict: true))
            }
            do {
                let result = try decodeAllFrames(copy, format: .gif, options: DecodeOptions())
                #expect(!result.warnings.isEmpty, "cut at \(cut)")
            } catch let error as CodecError {
                guard case .corrupt = error else { Issue.record("cut at \(cut): \(error)"); continue }
            }
        }
        let lastFrameCut = try decodeAllFrames(Data(whole.dropLast(40)), format: .gif, options: DecodeOptions())
        #expect(lastFrameCut.frames.count == 3, "the partial third frame is kept")
        #expect(lastFrameCut.warnings.contains { $0.contains("LZW code size above 8") }, "\(lastFrameCut.warnings)")
    }

    /// A code size of 12 is not GIF (codes would exceed 12 bits): damage, said so.
    @Test func codeSizeTwelveIsRefused() throws {
        var bytes = [UInt8](try Self.data())
        // The first frame's code size byte: header 13, global table 768, NETSCAPE block 19,
        // graphic control 8, descriptor 10.
        let at = 13 + 768 + 19 + 8 + 10
        #expect(bytes[at] == 9)
        bytes[at] = 12
        #expect {
            try decodeAllFrames(Data(bytes), format: .gif, options: DecodeOptions())
        } throws: { error in
            guard case .corrupt(_, let message) = error as? CodecError else { return false }
            return message.contains("LZW minimum code size 12 is not 2-11")
        }
    }

    /// Codes that point past the table are damage, not a crash (every byte of the first frame's
    /// data flipped in turn, lenient and strict).
    @Test func corruptCodesFailCleanly() throws {
        let whole = [UInt8](try Self.data())
        let start = 13 + 768 + 19 + 8 + 10 + 1
        for at in stride(from: start, to: start + 600, by: 7) {
            var copy = whole
            copy[at] ^= 0xA5
            for strict in [false, true] {
                do {
                    let result = try decodeAllFrames(Data(copy), format: .gif, options: DecodeOptions(strict: strict))
                    #expect(result.frames.count <= 3)
                } catch {
                    #expect(error is CodecError)
                }
            }
        }
    }
}
