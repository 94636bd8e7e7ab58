import Foundation
import ImageCodecs
import MediaTypes
import TestSupport
import Testing

/// The pixel budget holds for GIF frames larger than the logical screen: LZW decodes every
/// pixel of a row, on the canvas or not, so a frame's decoded area (width x rows decoded) is
/// checked, not only the screen. Fixture: TestImages/codecs/make-gif-wide-lzw.py, a 16x16 screen
/// with a 4000x16 frame and a 16x60000 interlaced one (Pillow refuses it as a 240 MP bomb).
@Suite struct GIFFrameBudgetTests {
    static func data() throws -> Data {
        try Data(contentsOf: Corpus.testImages.appendingPathComponent("codecs/gif_frame_larger_than_screen.gif"))
    }

    /// Budget 20,000 pixels: the screen (256) passes, the 4000x16 frame (64,000) does not.
    @Test func wideFrameIsHeldToTheBudget() throws {
        #expect {
            try decodeAllFrames(try Self.data(), format: .gif, options: DecodeOptions(pixelBudget: 20_000))
        } throws: { error in
            guard case .pixelBudgetExceeded(let width, let height, 20_000)? = error as? CodecError else { return false }
            return width == 4000 && height == 16
        }
    }

    /// Budget 100,000: the wide frame (64,000) decodes; the interlaced 16x60000 frame, whose
    /// last on-screen row (15) is stored row 30,007 (480,128 pixels decoded), does not.
    @Test func tallInterlacedFrameIsHeldToTheBudget() throws {
        var frames = 0
        #expect {
            try ImageCodecs.withAnimation(try Self.data(), format: .gif, options: DecodeOptions(pixelBudget: 100_000)) {
                source in
                while try source.nextFrame() != nil { frames += 1 }
            }
        } throws: { error in
            guard case .pixelBudgetExceeded(16, let height, 100_000)? = error as? CodecError else { return false }
            return height == 30_008
        }
        #expect(frames == 1)
    }

    /// Within the default budget both frames decode, clipped to the screen.
    @Test func defaultBudgetDecodesBoth() throws {
        let decoded = try decodeAllFrames(try Self.data(), format: .gif)
        #expect(decoded.frames.count == 2 && decoded.width == 16 && decoded.height == 16)
        #expect(decoded.frames[1].canvas[5, 5, 2] == 255, "the second frame is blue")
    }
}
