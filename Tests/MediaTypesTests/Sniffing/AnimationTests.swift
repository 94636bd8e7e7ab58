import Foundation
import TestSupport
import Testing

@testable import MediaTypes

@Suite("Frames, alpha and animation")
struct AnimationTests {
    static let gifs = Corpus.files(in: "gif", extensions: ["gif"]).map(corpusRelative)

    @Test("GIF frame count and size match ImageMagick", arguments: gifs)
    func gifFrames(_ path: String) throws {
        let row = try #require(VerifyTable.rows[path])
        let bytes = try corpusBytes(path)
        guard let imFrames = row.frames, imFrames > 0 else {
            // ImageMagick found no image: we must not crash; a throw is the expected answer.
            _ = try? Sniffer.sniff(bytes)
            return
        }
        let sniffed = try Sniffer.sniff(bytes)
        #expect(sniffed.format == .gif)
        #expect(sniffed.frames == imFrames)
        #expect(sniffed.isAnimated == (imFrames > 1))
        #expect("\(sniffed.width ?? 0)x\(sniffed.height ?? 0)" == row.dims)
    }

    @Test("animated GIFs in the corpus are found animated")
    func someGIFsAreAnimated() throws {
        let sniffed = try Sniffer.sniff(corpusBytes("gif/pillow_iss634.gif"))
        #expect(sniffed.frames == 42)
        #expect(sniffed.isAnimated)
        let still = try Sniffer.sniff(corpusBytes("gif/sharp_grey-plus-alpha.gif"))
        #expect(still.frames == 1)
        #expect(still.hasAlpha == true)
    }

    @Test("APNG: acTL before IDAT gives num_frames")
    func apng() throws {
        let sniffed = try Sniffer.sniff(corpusBytes("pngsuite/extra/apng_basic_f20.png"))
        #expect(sniffed.format == .png)
        #expect(sniffed.detail == "APNG")
        #expect(sniffed.frames == 20)
        #expect(sniffed.isAnimated)
        #expect(sniffed.width == 100 && sniffed.height == 100)
        #expect(sniffed.hasAlpha == true)
    }

    @Test("APNG whose acTL claims 0x80000001 frames is read as its still default image")
    func apngLyingFrameCount() throws {
        let sniffed = try Sniffer.sniff(corpusBytes("pngsuite/extra/apng_syntax_num_frames_invalid.png"))
        #expect(sniffed.frames == 1)
        #expect(!sniffed.isAnimated)
        #expect(sniffed.detail == "invalid acTL ignored")
    }

    @Test("a plain PNG is still, one frame")
    func stillPNG() throws {
        let sniffed = try Sniffer.sniff(corpusBytes("pngsuite/basn2c08.png"))
        #expect(sniffed.frames == 1)
        #expect(!sniffed.isAnimated)
        #expect(sniffed.detail == nil)
        #expect(sniffed.hasAlpha == false)
        #expect(sniffed.width == 32 && sniffed.height == 32)
        #expect(try Sniffer.sniff(corpusBytes("pngsuite/tbbn0g04.png")).hasAlpha == true)  // tRNS
        #expect(try Sniffer.sniff(corpusBytes("pngsuite/basn6a08.png")).hasAlpha == true)  // RGBA
    }

    struct WebPCase: Sendable, CustomTestStringConvertible {
        let path: String
        let detail: String
        let alpha: Bool
        let frames: Int
        let size: String
        var testDescription: String { path }
    }

    /// One case per WebP kind (VP8, VP8L, VP8X still with and without alpha, animated with and
    /// without alpha) from the bundled set, checked against libwebp's webpinfo.
    static let bundledWebPs: [WebPCase] = [
        .init(
            path: "metadata-extractor-images/alpha_lossless_1.webp", detail: "VP8L", alpha: true, frames: 1,
            size: "400x301"),
        .init(
            path: "metadata-extractor-images/alpha_lossless_2.webp", detail: "VP8L", alpha: true, frames: 1,
            size: "386x395"),
        .init(
            path: "metadata-extractor-images/alpha_lossy_1.webp", detail: "VP8X", alpha: true, frames: 1,
            size: "400x301"),
        .init(
            path: "metadata-extractor-images/alpha_lossy_2.webp", detail: "VP8X", alpha: true, frames: 1,
            size: "386x395"),
        .init(path: "metadata-extractor-images/photo_1.webp", detail: "VP8", alpha: false, frames: 1, size: "1024x772"),
        .init(
            path: "metadata-extractor-images/nikon_d1x.webp", detail: "VP8X", alpha: false, frames: 1, size: "600x391"),
        .init(
            path: "image-webp/regression/lossless_indexed_4bit_palette.webp", detail: "VP8L", alpha: false, frames: 1,
            size: "500x300"),
        .init(path: "image-webp/animated/random_lossy.webp", detail: "VP8X", alpha: false, frames: 4, size: "99x87"),
        .init(path: "misc/sharp_animated-loop-3.webp", detail: "VP8X", alpha: true, frames: 10, size: "370x285"),
    ]

    /// Larger samples only the full corpus has (`make conformance`).
    static let corpusWebPs: [WebPCase] = [
        .init(
            path: "metadata-extractor-images/animation_lossless.webp", detail: "VP8X", alpha: true, frames: 101,
            size: "320x240"),
        .init(
            path: "metadata-extractor-images/animation_lossy.webp", detail: "VP8X", alpha: true, frames: 101,
            size: "320x240"),
        .init(path: "metadata-extractor-images/webpvp8.webp", detail: "VP8", alpha: false, frames: 1, size: "1600x900"),
        .init(
            path: "metadata-extractor-images/webpvp8l.webp", detail: "VP8L", alpha: false, frames: 1, size: "1200x900"),
        .init(
            path: "metadata-extractor-images/webpvp8x.webp", detail: "VP8X", alpha: false, frames: 1, size: "1440x900"),
    ]

    static let webps = bundledWebPs + (Corpus.isExternal ? corpusWebPs : [])

    @Test("WebP variants and flags", arguments: webps)
    func webp(_ expected: WebPCase) throws {
        let sniffed = try Sniffer.sniff(corpusBytes("webp/\(expected.path)"))
        #expect(sniffed.format == .webp)
        #expect(sniffed.detail == expected.detail)
        #expect(sniffed.hasAlpha == expected.alpha)
        #expect(sniffed.frames == expected.frames)
        #expect(sniffed.isAnimated == (expected.frames > 1))
        #expect("\(sniffed.width ?? 0)x\(sniffed.height ?? 0)" == expected.size)
    }

    static let allWebPs = Corpus.files(in: "webp", extensions: ["webp"]).map(corpusRelative)

    @Test("every WebP ImageMagick decoded sniffs with its size and frame count", arguments: allWebPs)
    func webpMatchesImageMagick(_ path: String) throws {
        let row = try #require(VerifyTable.rows[path], "\(path) has no row in VERIFY.tsv")
        let frames = try #require(row.frames, "\(path): VERIFY.tsv has no frame count")
        try #require(frames > 0, "\(path): ImageMagick decoded no frame")
        let sniffed = try Sniffer.sniff(corpusBytes(path))
        #expect(sniffed.format == .webp)
        #expect(sniffed.frames == frames)
        #expect("\(sniffed.width ?? 0)x\(sniffed.height ?? 0)" == row.dims)
    }
}
