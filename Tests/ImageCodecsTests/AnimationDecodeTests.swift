import Foundation
import ImageCodecs
import MediaTypes
import TestSupport
import Testing

/// One line of `TestImages/codecs/animation/references.tsv`: what Pillow 13.0.0 decoded from a fixture.
struct AnimationReference: CustomTestStringConvertible, Sendable {
    let file: String
    let width: Int
    let height: Int
    let frames: Int
    /// Pillow's `info["loop"]`: GIF NETSCAPE2.0 repetitions, WebP plays; nil when the file has none.
    let loop: Int?
    let durations: [Int]
    var testDescription: String { file }
    var format: MediaFormat { file.hasSuffix(".gif") ? .gif : .webp }
    var referenceName: String { file.replacingOccurrences(of: "/", with: "_") + ".frames" }

    static let folder = Corpus.testImages.appendingPathComponent("codecs/animation")

    static let all: [AnimationReference] = {
        guard let text = try? String(contentsOf: folder.appendingPathComponent("references.tsv"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let f = line.split(separator: "\t").map(String.init)
            return AnimationReference(
                file: f[0], width: Int(f[1])!, height: Int(f[2])!, frames: Int(f[3])!, loop: Int(f[4]),
                durations: f[5].split(separator: ",").map { Int($0)! })
        }
    }()
}

/// 64-bit FNV-1a over `bytes`, as `make-references.py` hashes Pillow's RGBA frames.
func fnv1a64(_ bytes: [UInt8]) -> String {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
    let hex = String(h, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}

/// Decodes every frame of `data` through `ImageCodecs.withAnimation`.
func decodeAllFrames(_ data: Data, format: MediaFormat, options: DecodeOptions = DecodeOptions()) throws -> (
    frames: [AnimationFrame], width: Int, height: Int, count: Int, loop: Int, total: Int, warnings: [String]
) {
    try ImageCodecs.withAnimation(data, format: format, options: options) { source in
        var frames: [AnimationFrame] = []
        while let frame = try source.nextFrame() { frames.append(frame) }
        return (
            frames, source.canvasWidth, source.canvasHeight, source.frameCount, source.loopCount,
            source.totalDurationMilliseconds, source.warnings
        )
    }
}

/// The GIF and animated-WebP decoders against Pillow's composited frames (references made by
/// `TestImages/codecs/animation/make-references.py`, Pillow 13.0.0).
@Suite struct AnimationDecodeTests {
    /// The whole list must be there: a missing reference file is a failure, not zero test cases.
    @Test func referencesArePresent() {
        #expect(AnimationReference.all.count == 12)
    }

    @Test(arguments: AnimationReference.all)
    func matchesPillow(_ reference: AnimationReference) throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent(reference.file))
        let decoded = try decodeAllFrames(data, format: reference.format)
        #expect(decoded.width == reference.width && decoded.height == reference.height)
        #expect(decoded.count == reference.frames)
        #expect(decoded.frames.count == reference.frames)
        #expect(decoded.frames.map(\.durationMilliseconds) == reference.durations)
        #expect(decoded.total == reference.durations.reduce(0, +))
        #expect(decoded.warnings.isEmpty)
        // Loop: GIF stores repetitions (plays - 1, no block = play once); WebP stores plays.
        let expectedLoop: Int
        switch (reference.format, reference.loop) {
        case (.gif, nil): expectedLoop = 1
        case (.gif, 0?): expectedLoop = 0
        case (.gif, let n?): expectedLoop = n + 1
        default: expectedLoop = reference.loop ?? 0
        }
        #expect(decoded.loop == expectedLoop)

        let folder = AnimationReference.folder
        let hashes = folder.appendingPathComponent(reference.referenceName + ".fnv1a")
        if FileManager.default.fileExists(atPath: hashes.path) {
            let expected = try String(contentsOf: hashes, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(decoded.frames.map { fnv1a64($0.canvas.bytes) } == expected)
            return
        }
        let strip = try ImageCodecs.decode(
            try Data(contentsOf: folder.appendingPathComponent(reference.referenceName + ".png")), format: .png
        ).pixels
        try #require(strip.layout == .rgba && strip.width == reference.width)
        // GIF: palette colours, exact. Lossy WebP: Pillow bundles another libwebp build, so allow rounding.
        let tolerance = reference.format == .gif ? 0.0 : 1.0
        var cleared = 0
        for (i, frame) in decoded.frames.enumerated() {
            let rowBytes = reference.width * 4
            let start = i * reference.height * rowBytes
            let expected = PixelBuffer(
                width: reference.width, height: reference.height, layout: .rgba,
                bytes: Array(strip.bytes[start..<(start + reference.height * rowBytes)]))
            var expectedVisible = Self.visible(expected)
            if reference.format == .gif, Self.pillowFillsDisposedArea.contains(reference.file) {
                cleared += Self.clearPillowBackground(&expectedVisible, where: frame.canvas)
            }
            let error = try #require(Pixels.meanAbsoluteError(Self.visible(frame.canvas), expectedVisible))
            #expect(error <= tolerance, "frame \(i): mean abs error \(error)")
        }
        if Self.pillowFillsDisposedArea.contains(reference.file) { #expect(cleared > 0) }
    }

    /// Disposal to background: browsers (and this decoder) clear the rectangle to transparent;
    /// Pillow paints it with the background colour index (opaque black in this file).
    static let pillowFillsDisposedArea: Set<String> = ["conformance/gif/pillow_dispose_bgnd.gif"]

    /// Where ours is transparent and Pillow shows opaque black, takes ours; returns how many pixels.
    static func clearPillowBackground(_ reference: inout PixelBuffer, where ours: PixelBuffer) -> Int {
        var count = 0
        for i in stride(from: 0, to: reference.bytes.count, by: 4)
        where ours.bytes[i + 3] == 0 && reference.bytes[i..<(i + 4)].elementsEqual([0, 0, 0, 255]) {
            reference.bytes[i + 3] = 0
            count += 1
        }
        return count
    }

    /// Fully transparent pixels compare as transparent black whatever colour they carry.
    static func visible(_ buffer: PixelBuffer) -> PixelBuffer {
        var out = buffer
        for i in stride(from: 0, to: out.bytes.count, by: 4) where out.bytes[i + 3] == 0 {
            out.bytes[i] = 0; out.bytes[i + 1] = 0; out.bytes[i + 2] = 0
        }
        return out
    }

    @Test(arguments: [("animated-120x90.gif", MediaFormat.gif), ("animated-120x90.webp", .webp)])
    func pixelBudgetRefusedBeforeDecoding(_ file: String, _ format: MediaFormat) throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent(file))
        var options = DecodeOptions()
        options.pixelBudget = 120 * 90 - 1
        #expect(throws: CodecError.pixelBudgetExceeded(width: 120, height: 90, budget: 120 * 90 - 1)) {
            _ = try decodeAllFrames(data, format: format, options: options)
        }
    }

    @Test func stillWebPIsOneFrame() throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent("alpha-lossless-256x256.webp"))
        let decoded = try decodeAllFrames(data, format: .webp)
        #expect(decoded.count == 1 && decoded.frames.count == 1)
        let still = try ImageCodecs.decode(data, format: .webp).pixels
        #expect(Pixels.meanAbsoluteError(decoded.frames[0].canvas, still) == 0)
    }

    @Test func truncatedGIFKeepsDecodedFramesLenientlyAndThrowsStrictly() throws {
        let whole = try Data(contentsOf: Corpus.testImages.appendingPathComponent("conformance/gif/sharp_rotating-squares.gif"))
        let cut = whole.prefix(whole.count * 2 / 3)
        let lenient = try decodeAllFrames(cut, format: .gif)
        #expect(lenient.frames.count > 1 && lenient.frames.count < 30)
        #expect(!lenient.warnings.isEmpty)
        // The frames before the cut are the intact file's frames.
        let intact = try decodeAllFrames(whole, format: .gif)
        #expect(lenient.frames[0].canvas == intact.frames[0].canvas)
        var strict = DecodeOptions()
        strict.strict = true
        #expect(throws: CodecError.self) { _ = try decodeAllFrames(cut, format: .gif, options: strict) }
    }

    @Test func notAnAnimationFormat() throws {
        #expect(throws: CodecError.self) { _ = try decodeAllFrames(Data([1, 2, 3]), format: .png) }
        #expect(throws: CodecError.self) { _ = try decodeAllFrames(Data("GIF89a".utf8), format: .gif) }
        #expect(throws: CodecError.self) { _ = try decodeAllFrames(Data("RIFF....WEBP".utf8), format: .webp) }
    }
}
