import Foundation
import Testing

@testable import MediaTypes

/// Every IHDR field against the PNG specification (11.2.2), and chunk names from the file
/// escaped in messages.
@Suite("PNG IHDR fields and chunk names")
struct PNGHeaderFieldTests {
    /// A PNG signature, an IHDR with the given fields, and IEND (CRCs zero: not checked here).
    static func png(
        width: UInt32 = 16, height: UInt32 = 16, depth: UInt8 = 8, colorType: UInt8 = 6, compression: UInt8 = 0,
        filter: UInt8 = 0, interlace: UInt8 = 0
    ) -> [UInt8] {
        var b: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        b += be32(width) + be32(height) + [depth, colorType, compression, filter, interlace] + [0, 0, 0, 0]
        b += [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
        return b
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// Every combination the spec allows, per colour type.
    static let allowed: [(colorType: UInt8, depths: [UInt8])] = [
        (0, [1, 2, 4, 8, 16]), (2, [8, 16]), (3, [1, 2, 4, 8]), (4, [8, 16]), (6, [8, 16]),
    ]

    @Test func everyAllowedDepthAndColourTypeSniffs() throws {
        for (colorType, depths) in Self.allowed {
            for depth in depths {
                let sniffed = try Sniffer.sniff(Self.png(depth: depth, colorType: colorType))
                #expect(sniffed.format == .png, "colour type \(colorType) depth \(depth)")
                #expect(sniffed.width == 16)
            }
        }
    }

    @Test func everyOtherDepthAndColourTypeIsRefused() {
        var refused = 0
        for colorType in UInt8(0)...UInt8(8) {
            for depth in UInt8(0)...UInt8(32) {
                let allowed = Self.allowed.first { $0.colorType == colorType }?.depths.contains(depth) ?? false
                if allowed { continue }
                #expect(
                    throws: SniffError.invalidHeader(
                        format: .png, detail: "colour type \(colorType) with bit depth \(depth)")
                ) {
                    try Sniffer.sniff(Self.png(depth: depth, colorType: colorType))
                }
                refused += 1
            }
        }
        #expect(refused == 9 * 33 - 15)
    }

    @Test(arguments: [UInt8(1), 8, 255])
    func unknownCompressionMethodIsRefused(method: UInt8) {
        #expect(
            throws: SniffError.invalidHeader(
                format: .png, detail: "compression method \(method), only 0 (deflate) exists")
        ) {
            try Sniffer.sniff(Self.png(compression: method))
        }
    }

    @Test(arguments: [UInt8(1), 64, 255])
    func unknownFilterMethodIsRefused(method: UInt8) {
        #expect(
            throws: SniffError.invalidHeader(format: .png, detail: "filter method \(method), only 0 (adaptive) exists")
        ) {
            try Sniffer.sniff(Self.png(filter: method))
        }
    }

    @Test(arguments: [UInt8(2), 7, 255])
    func unknownInterlaceMethodIsRefused(method: UInt8) {
        #expect(
            throws: SniffError.invalidHeader(
                format: .png, detail: "interlace method \(method), only 0 (none) and 1 (Adam7) exist")
        ) {
            try Sniffer.sniff(Self.png(interlace: method))
        }
    }

    @Test func adam7InterlaceIsAccepted() throws {
        #expect(try Sniffer.sniff(Self.png(interlace: 1)).format == .png)
    }

    @Test(arguments: [
        (UInt32(0), UInt32(1)), (1, 0), (0x8000_0000, 1), (1, 0x8000_0000), (0xFFFF_FFFF, 0xFFFF_FFFF),
    ])
    func dimensionsOutsideOneToTwoToThe31AreRefused(width: UInt32, height: UInt32) {
        #expect(throws: SniffError.invalidDimensions(format: .png, width: Int(width), height: Int(height))) {
            try Sniffer.sniff(Self.png(width: width, height: height))
        }
    }

    @Test func largestDimensionsAreAccepted() throws {
        let sniffed = try Sniffer.sniff(Self.png(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF))
        #expect(sniffed.width == Int(Int32.max))
        #expect(sniffed.height == Int(Int32.max))
    }

    @Test func ihdrCutBeforeTheInterlaceByteIsTruncated() {
        #expect(throws: SniffError.truncated(format: .png, detail: "the IHDR chunk is cut short")) {
            try Sniffer.sniff(Array(Self.png().prefix(28)))
        }
    }

    // MARK: Chunk names from the file, escaped

    @Test func firstChunkNameWithAnEscapeSequenceIsShownEscaped() throws {
        // A "chunk type" that clears the terminal.
        var bytes = Self.png()
        bytes.replaceSubrange(12..<16, with: [0x1B, 0x5B, 0x32, 0x4A])
        let error = try #require(throws: SniffError.self) { try Sniffer.sniff(bytes) }
        #expect(error.description.contains(#"first chunk is '\u{1B}[2J' of 13 bytes"#))
        #expect(!error.description.unicodeScalars.contains("\u{1B}"))
    }

    @Test func laterChunkNameWithControlAndHighBytesIsShownEscaped() throws {
        var bytes = Array(Self.png().dropLast(12))
        bytes += [0x00, 0x10, 0x00, 0x00, 0x0A, 0x89, 0x07, 0x41]  // length past the end, "\n\x89\aA"
        let error = try #require(throws: SniffError.self) { try Sniffer.sniff(bytes) }
        #expect(error.description.contains(#"chunk '\n\x89\u{07}A' at byte 33"#))
        #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test func webpFirstChunkNameIsShownEscaped() throws {
        let body = Array("WEBP".utf8) + [0x1B, 0x5D, 0x30, 0x3B] + [10, 0, 0, 0] + [UInt8](repeating: 0, count: 10)
        let bytes = Array("RIFF".utf8) + [UInt8(body.count), 0, 0, 0] + body
        let error = try #require(throws: SniffError.self) { try Sniffer.sniff(bytes) }
        #expect(error.description.contains(#"first chunk is '\u{1B}]0;', expected VP8, VP8L or VP8X"#))
        #expect(!error.description.unicodeScalars.contains("\u{1B}"))
    }

    @Test func webpAnimationChunkNameIsShownEscaped() throws {
        // VP8X with the animation flag, then a chunk named "\x9B2J\x00" claiming more than there is.
        let vp8x: [UInt8] = Array("VP8X".utf8) + [10, 0, 0, 0] + [0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let chunk: [UInt8] = [0x9B, 0x32, 0x4A, 0x00] + [0xFF, 0, 0, 0]
        let body = Array("WEBP".utf8) + vp8x + chunk
        let bytes = Array("RIFF".utf8) + [UInt8(body.count), 0, 0, 0] + body
        let error = try #require(throws: SniffError.self) { try Sniffer.sniff(bytes) }
        #expect(error.description.contains(#"chunk '\x9B2J\u{00}' at byte 30"#))
    }

    @Test func sniffErrorDescriptionEscapesADetailItWasGivenRaw() {
        let error = SniffError.invalidHeader(format: .png, detail: "raw \u{1B}[31m\nnext")
        #expect(error.description.contains(#"raw \u{1B}[31m\nnext"#))
    }

    /// An IDAT that runs past the end of the file is the image data cut short, not a damaged
    /// header: the sniffer gives IHDR's facts and leaves the damage to the decoder.
    @Test func idatPastTheEndIsNotAHeaderProblem() throws {
        var b = Array(Self.png(width: 40, height: 30, colorType: 2).dropLast(12))
        b += Self.be32(5000) + Array("IDAT".utf8) + [0x78, 0x9C, 1, 2, 3]
        let sniffed = try Sniffer.sniff(b)
        #expect(sniffed.format == .png && sniffed.width == 40 && sniffed.height == 30)
        // A chunk before IDAT that runs past the end is still the header cut short.
        var early = Array(Self.png().dropLast(12))
        early += Self.be32(5000) + Array("tEXt".utf8) + [1, 2, 3]
        #expect(throws: SniffError.self) { _ = try Sniffer.sniff(early) }
    }
}
