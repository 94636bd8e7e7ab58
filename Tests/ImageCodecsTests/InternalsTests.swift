import Foundation
import Testing

@testable import ImageCodecs

/// The small pieces behind the codecs: CMYK maths, the zlib subset, PNG chunk checks.
@Suite struct InternalsTests {
    @Test func cmykConversionBothConventions() {
        // Plain CMYK: no ink is white, full K is black, full C is cyan.
        let plain = CMYKConversion.toRGB(
            [0, 0, 0, 0, 0, 0, 0, 255, 255, 0, 0, 0], width: 3, height: 1, inverted: false)
        #expect(plain.bytes == [255, 255, 255, 0, 0, 0, 0, 255, 255])
        // Adobe-inverted: the same three pixels stored as 255 - value.
        let adobe = CMYKConversion.toRGB(
            [255, 255, 255, 255, 255, 255, 255, 0, 0, 255, 255, 255], width: 3, height: 1, inverted: true)
        #expect(adobe.bytes == plain.bytes)
    }

    @Test(arguments: [0, 1, 100, 65_535, 65_536, 200_000])
    func zlibStoredRoundTrip(_ count: Int) throws {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        #expect(try Zlib.inflate(Zlib.stored(bytes)[...], limit: 1 << 20) == bytes)
    }

    @Test func zlibRefusesDamageAndBombs() {
        let stream = Zlib.stored(Array(repeating: 7, count: 1000))
        #expect(throws: Zlib.Failure.self) { try Zlib.inflate(stream[..<500], limit: 1 << 20) }
        #expect(throws: Zlib.Failure.self) { try Zlib.inflate(stream[...], limit: 999) }
        var bad = stream
        bad[bad.count - 1] ^= 1
        #expect(throws: Zlib.Failure.self) { try Zlib.inflate(bad[...], limit: 1 << 20) }
        #expect(throws: Zlib.Failure.self) {
            try Zlib.inflate([0x78, 0x9C, 0xFF, 0xFF, 0xFF, 0xFF][...], limit: 1 << 20)
        }
    }

    @Test func crc32MatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)[...]) == 0xCBF4_3926)
    }

    @Test func pngChunkWalkRejectsBadCriticalCRC() throws {
        var png = [UInt8](try PNGCodec.encode(PixelBuffer(width: 2, height: 2, layout: .rgb)))
        // Flip one bit inside IHDR's data (width): the CRC does not match it.
        png[19] ^= 1
        #expect(throws: CodecError.self) { try PNGChunks(png) { _, _ throws(CodecError) in } }
    }

    @Test func jpegICCEmbedSplitsLargeProfiles() throws {
        let profile = (0..<150_000).map { UInt8(truncatingIfNeeded: $0) }
        let jpeg = [UInt8](try JPEGCodec.encode(PixelBuffer(width: 8, height: 8, layout: .gray), iccProfile: profile))
        #expect(JPEGHeader(jpeg).iccProfile == profile)
        // Three APP2 segments, right after the JFIF APP0.
        #expect(jpeg[20] == 0xFF && jpeg[21] == 0xE2)
    }
}
