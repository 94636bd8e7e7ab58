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

    /// Stored (level 0), fast and smallest streams, sizes around the 64 KB of a stored block.
    @Test(arguments: [0, 1, 100, 65_535, 65_536, 200_000])
    func zlibRoundTrip(_ count: Int) throws {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        for level: Int32 in [0, 1, 9, 12] {
            #expect(try Zlib.inflate(Zlib.deflate(bytes, level: level)[...], limit: 1 << 20) == bytes, "level \(level)")
        }
        #expect(try Zlib.inflate(Zlib.deflateFast(bytes)[...], limit: 1 << 20) == bytes, "ISA-L level 1")
        // Incompressible bytes, where ISA-L's output may pass its bound and libdeflate's is used.
        var rng = SystemRandomNumberGenerator()
        let noise = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
        #expect(try Zlib.inflate(Zlib.deflateFast(noise)[...], limit: 1 << 20) == noise, "noise")
    }

    /// A highly compressible profile comes out smaller than it went in (iCCP is compressed).
    @Test func zlibCompresses() {
        let bytes = [UInt8](repeating: 7, count: 100_000)
        #expect(Zlib.deflate(bytes).count < 1_000)
    }

    @Test func zlibRefusesDamageAndBombs() {
        let stream = Zlib.deflate(Array(repeating: 7, count: 1000), level: 0)
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
