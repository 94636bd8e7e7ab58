import Foundation
import TestSupport
import Testing

@testable import MediaTypes

@Suite("Hostile input")
struct HostileInputTests {
    static let everyFile = Corpus.files(in: ".").map(corpusRelative)

    @Test("every corpus file cut at 10%, 50% and 99% sniffs without trapping")
    func truncatedCorpus() throws {
        #expect(Self.everyFile.count > (Corpus.isExternal ? 500 : 400))
        var threw = 0
        for path in Self.everyFile {
            let bytes = try corpusBytes(path)
            for fraction in [0.10, 0.50, 0.99] {
                let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
                do {
                    let sniffed = try Sniffer.sniff(cut)
                    // Whatever comes back must be internally consistent.
                    if let w = sniffed.width { #expect(w > 0, "\(path) at \(fraction)") }
                    if let h = sniffed.height { #expect(h > 0, "\(path) at \(fraction)") }
                } catch {
                    threw += 1
                    #expect(!error.description.isEmpty)
                }
                _ = Sniffer.identify(prefix: cut)
            }
        }
        // Cutting headers short is noticed for a good share of the files.
        #expect(threw > 0)
    }

    @Test("every prefix length of a few headers sniffs without trapping")
    func everyPrefix() throws {
        for path in [
            "small/png-transparent.png", "gif/sharp_grey-plus-alpha.gif", "small/jpeg.jpg",
            "webp/misc/pillow_hopper_exif_orientation_6.webp", "small/heif.heif", "small/bmp.bmp", "small/ico.ico",
            "small/extra/mimetype_mp3.v2.notag.mp3", "small/svg.svg",
        ] {
            let bytes = try corpusBytes(path)
            let whole = try Sniffer.sniff(bytes)
            #expect(whole.format != .unknown, "\(path)")
            var recognised = 0
            for n in 0...min(bytes.count, 400) {
                let prefix = Array(bytes.prefix(n))
                // A cut file is its own format or not recognised, never another one, and any size
                // it reports is the whole file's.
                if let sniffed = try? Sniffer.sniff(prefix), sniffed.format != .unknown {
                    recognised += 1
                    #expect(sniffed.format == whole.format, "\(path) cut at \(n)")
                    if let width = sniffed.width { #expect(width == whole.width, "\(path) cut at \(n)") }
                    if let height = sniffed.height { #expect(height == whole.height, "\(path) cut at \(n)") }
                }
                let identified = Sniffer.identify(prefix: prefix)
                #expect(identified == .unknown || identified == whole.format, "\(path) cut at \(n)")
            }
            // Once the header is whole, the prefix is recognised (for formats judged by a header;
            // an extended WebP's facts may need its whole chunk walk).
            if whole.format != .webp { #expect(recognised > 0, "\(path)") }
        }
    }

    // MARK: Hand-made lying headers

    static func png(width: UInt32, height: UInt32, extraChunk: [UInt8] = []) -> [UInt8] {
        var b: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        b += be32(width) + be32(height) + [8, 6, 0, 0, 0] + [0, 0, 0, 0]
        b += extraChunk
        b += [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
        return b
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] {
        [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
    }

    static func gif(width: UInt16, height: UInt16, body: [UInt8]) -> [UInt8] {
        Array("GIF89a".utf8) + le16(width) + le16(height) + [0, 0, 0] + body
    }

    static let oneImage: [UInt8] = [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x4C, 0x01, 0, 0x3B]

    static func jpeg(width: UInt16, height: UInt16) -> [UInt8] {
        [
            0xFF, 0xD8, 0xFF, 0xC0, 0, 11, 8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8),
            UInt8(width & 0xFF), 1, 1, 0x11, 0,
        ]
            + [0xFF, 0xDA, 0, 2, 0xFF, 0xD9]
    }

    static func webpVP8X(width: UInt32, height: UInt32, flags: UInt8 = 0, riffSize: UInt32? = nil) -> [UInt8] {
        let payload: [UInt8] = [flags, 0, 0, 0] + Array(le32(width - 1).prefix(3)) + Array(le32(height - 1).prefix(3))
        let body = Array("WEBP".utf8) + Array("VP8X".utf8) + le32(10) + payload
        return Array("RIFF".utf8) + le32(riffSize ?? UInt32(body.count)) + body
    }

    struct Lie: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let format: MediaFormat
        var testDescription: String { name }
    }

    static let lies: [Lie] = [
        Lie(name: "PNG 0x0", bytes: png(width: 0, height: 0), format: .png),
        Lie(name: "PNG 0 wide", bytes: png(width: 0, height: 10), format: .png),
        Lie(name: "PNG 0xFFFFFFFF", bytes: png(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF), format: .png),
        Lie(name: "PNG 2^31 high", bytes: png(width: 1, height: 0x8000_0000), format: .png),
        Lie(
            name: "PNG chunk length past end",
            bytes: png(width: 1, height: 1, extraChunk: [0, 0x10, 0, 0] + Array("tEXt".utf8) + [1, 2, 3]), format: .png),
        Lie(
            name: "PNG chunk length 0xFFFFFFFF",
            bytes: png(width: 1, height: 1, extraChunk: [0xFF, 0xFF, 0xFF, 0xFF] + Array("tEXt".utf8)), format: .png),
        Lie(name: "PNG IHDR only", bytes: Array(png(width: 1, height: 1).prefix(20)), format: .png),
        Lie(name: "GIF 0x0", bytes: gif(width: 0, height: 0, body: oneImage), format: .gif),
        Lie(
            name: "GIF sub-block past end",
            bytes: gif(width: 1, height: 1, body: [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 0xFF, 1]), format: .gif),
        Lie(
            name: "GIF cut inside image data", bytes: gif(width: 1, height: 1, body: Array(oneImage.dropLast(2))),
            format: .gif),
        Lie(name: "GIF with no image", bytes: gif(width: 1, height: 1, body: [0x3B]), format: .gif),
        Lie(name: "GIF garbage block", bytes: gif(width: 1, height: 1, body: [0x99]), format: .gif),
        Lie(name: "JPEG 0x0", bytes: jpeg(width: 0, height: 0), format: .jpeg),
        Lie(name: "JPEG 0 high", bytes: jpeg(width: 640, height: 0), format: .jpeg),
        Lie(
            name: "JPEG segment length past end", bytes: [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 0x45, 0x78], format: .jpeg
        ),
        Lie(name: "JPEG segment length 1", bytes: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0, 0, 0, 0], format: .jpeg),
        Lie(name: "JPEG no SOF", bytes: [0xFF, 0xD8, 0xFF, 0xDA, 0, 2, 0xFF, 0xD9], format: .jpeg),
        Lie(name: "WebP VP8X 0xFFFFFF+1 canvas", bytes: webpVP8X(width: 0x100_0000, height: 0x100_0000), format: .webp),
        Lie(
            name: "WebP RIFF size past end", bytes: webpVP8X(width: 10, height: 10, riffSize: 0xFFFF_FFF0),
            format: .webp),
        Lie(name: "WebP animated without frames", bytes: webpVP8X(width: 10, height: 10, flags: 0x02), format: .webp),
        Lie(
            name: "WebP VP8L 0x0 is impossible; VP8 0 wide",
            bytes: Array("RIFF".utf8) + le32(22) + Array("WEBPVP8 ".utf8) + le32(10) + [
                0, 0, 0, 0x9D, 0x01, 0x2A, 0, 0, 10, 0,
            ],
            format: .webp),
        Lie(
            name: "BMP 0x0", bytes: Array("BM".utf8) + [UInt8](repeating: 0, count: 12) + le32(40) + le32(0) + le32(0),
            format: .bmp),
        Lie(
            name: "ftyp box past end",
            bytes: [0, 0, 0x10, 0] + Array("ftypisom".utf8) + [0, 0, 0, 0] + Array("isom".utf8), format: .mp4),
    ]

    @Test("lying headers throw, naming the format", arguments: lies)
    func lyingHeaderThrows(_ lie: Lie) {
        let error = #expect(throws: SniffError.self) { try Sniffer.sniff(lie.bytes) }
        #expect(error?.format == lie.format)
        #expect(error.map { !$0.description.isEmpty } == true)
    }

    @Test("the hand-made headers are well-formed when they tell the truth")
    func truthfulHeadersSniff() throws {
        let png = try Sniffer.sniff(Self.png(width: 3, height: 2))
        #expect(png.format == .png && png.width == 3 && png.height == 2)
        let gif = try Sniffer.sniff(Self.gif(width: 1, height: 1, body: Self.oneImage))
        #expect(gif.format == .gif && gif.frames == 1)
        // Missing trailer after a whole image: accepted, as every decoder does.
        let noTrailer = try Sniffer.sniff(Self.gif(width: 1, height: 1, body: Array(Self.oneImage.dropLast())))
        #expect(noTrailer.frames == 1)
        let jpeg = try Sniffer.sniff(Self.jpeg(width: 640, height: 480))
        #expect(jpeg.format == .jpeg && jpeg.width == 640 && jpeg.height == 480 && jpeg.detail == "grayscale")
        let webp = try Sniffer.sniff(Self.webpVP8X(width: 16383, height: 2, flags: 0x10))
        #expect(webp.format == .webp && webp.width == 16383 && webp.hasAlpha == true)
    }

    @Test("HEIC with 0xFFFFFFFF ispe extents does not overflow")
    func hugeISPE() throws {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            Self.be32(UInt32(8 + body.count)) + Array(type.utf8) + body
        }
        let ispe = box("ispe", [0, 0, 0, 0] + Self.be32(0xFFFF_FFFF) + Self.be32(0xFFFF_FFFF))
        let meta = box("meta", [0, 0, 0, 0] + box("iprp", box("ipco", ispe + ispe)))
        let bytes = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)) + meta
        let sniffed = try Sniffer.sniff(bytes)
        #expect(sniffed.format == .heic)
        #expect(sniffed.width == 0xFFFF_FFFF)
        // The pixel budget refuses it from the header, before any decode, without overflowing.
        let plan = Planner.plan(MediaFacts(sniffed: sniffed, byteCount: bytes.count, fileExtension: "heic"), policy: .init())
        #expect(plan.refusal == .overPixelBudget(.heic, width: 0xFFFF_FFFF, height: 0xFFFF_FFFF, budget: 50_000_000))
    }

    @Test("random bytes after each magic never trap, and what sniffs is consistent")
    func randomBytes() {
        var generator = SplitMix64(seed: TestSeed.value(default: 0x5EED_0001, for: "HostileInputTests.randomBytes"))
        let magics: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], Array("GIF89a".utf8),
            Array("RIFF".utf8), [0, 0, 0, 0x18] + Array("ftyp".utf8), Array("ID3".utf8), [0x47], Array("BM".utf8),
            [0, 0, 1, 0],
        ]
        var outcomes = (sniffed: 0, threw: 0)
        for magic in magics {
            for _ in 0..<300 {
                let tail = (0..<Int.random(in: 0...80, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
                let bytes = magic + tail
                do {
                    let sniffed = try Sniffer.sniff(bytes)
                    outcomes.sniffed += 1
                    if let w = sniffed.width { #expect(w > 0, "\(bytes)") }
                    if let h = sniffed.height { #expect(h > 0, "\(bytes)") }
                } catch {
                    outcomes.threw += 1
                    #expect(!error.description.isEmpty)
                }
                _ = Sniffer.identify(prefix: bytes)
            }
        }
        #expect(outcomes.sniffed + outcomes.threw == magics.count * 300)
        // Random tails after a magic number are mostly refused, but not all of them.
        #expect(outcomes.threw > 0 && outcomes.sniffed > 0, "\(outcomes)")
    }
}
