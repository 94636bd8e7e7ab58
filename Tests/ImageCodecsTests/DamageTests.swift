import Foundation
import MediaTypes
import TestSupport
import Testing

@testable import ImageCodecs

/// Which codec warnings mean damaged image data (`DecodedImage.damage`), and which leave the
/// pixels as encoded.
@Suite struct DamageTests {
    /// TurboJPEG's one message, read the way the shim classifies libjpeg's warnings by their
    /// message codes: the reference's damage verdict agrees with ours wherever both speak.
    @Test(arguments: [
        ("Corrupt JPEG data: bad Huffman code", true),
        ("Premature end of JPEG file", true),
        ("Corrupt JPEG data: found marker 0xf7 instead of RST0", true),
        ("Inconsistent progression sequence for component 0 coefficient 0", true),
        ("Unsupported marker type 0xf7", true),
        ("Corrupt JPEG data: premature end of data segment", true),
        ("Corrupt JPEG data: 4 extraneous bytes before marker 0xdb", false),
        ("Corrupt JPEG data: 6 extraneous bytes before marker 0xd1", false),
        ("Warning: unknown JFIF revision number 3.01", false),
        ("Unknown Adobe color transform code 7", false),
        ("Corrupt JPEG data: bad ICC marker", false),
        ("Invalid SOS parameters for sequential JPEG", false),
    ])
    func theReferencesMessagesReadAsTheShimClassifies(_ message: String, isDamage: Bool) {
        #expect(TurboJPEGReference.isMetadataMessage(message) == !isDamage, "\(message)")
    }

    /// The small fixture with `junk` bytes before its first DQT, cut at `fraction` of its length.
    static func junkBeforeDQT(cutAt fraction: Double?) throws -> Data {
        var bytes = [UInt8](try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg")))
        let dqt = try #require(try JPEGSegments.read(bytes).first { $0.marker == 0xDB })
        bytes.insert(contentsOf: [0x12, 0x34, 0x56, 0x78], at: dqt.payloadOffset - 4)
        if let fraction { bytes = Array(bytes.prefix(Int(Double(bytes.count) * fraction))) }
        return Data(bytes)
    }

    /// Harmless junk between two segments is a warning only...
    @Test func junkBetweenSegmentsIsNotDamage() throws {
        let decoded = try JPEGCodec.decode(try Self.junkBeforeDQT(cutAt: nil), options: DecodeOptions())
        #expect(decoded.warnings.contains { $0.contains("extraneous bytes before marker 0xdb") }, "\(decoded.warnings)")
        #expect(decoded.damage.isEmpty, "\(decoded.damage)")
    }

    /// ...but libjpeg words only its first warning, so the same junk in front of a scan cut
    /// short would hide the truncation: the missing end-of-image marker gives it away.
    @Test func junkDoesNotHideATruncatedScan() throws {
        let decoded = try JPEGCodec.decode(try Self.junkBeforeDQT(cutAt: 0.6), options: DecodeOptions())
        #expect(decoded.isDamaged, "warnings \(decoded.warnings)")
    }

    /// An Exif thumbnail's own EOI, before the main scan, is not the image's end.
    @Test func endOfImageIsLookedForAfterTheScan() throws {
        let photo = [UInt8](try Corpus.cameraHeader("canon_eos_1000d_orient6.jpg"))  // headers, no scan data
        #expect(photo.indices.dropLast().contains { photo[$0] == 0xFF && photo[$0 + 1] == 0xD9 }, "has a thumbnail EOI")
        #expect(!JPEGCodec.hasEndOfImage(photo))
        let whole = [UInt8](try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg")))
        #expect(JPEGCodec.hasEndOfImage(whole))
        #expect(!JPEGCodec.hasEndOfImage(Array(whole.dropLast(2))))
    }

    /// A JPEG without its own Huffman tables (Motion-JPEG style) decodes with libjpeg's
    /// defaults, not with the tables the previous image left on a pooled handle: decoded right
    /// after another file, it still has only its harmless warning.
    @Test func tablelessJPEGDoesNotInheritThePreviousImagesTables() throws {
        let tableless = try Corpus.data("jpeg/jpeg-decoder/mjpeg.jpg")
        #expect(!TurboJPEGPool.bringsItsOwnTables([UInt8](tableless)))
        let other = try Data(contentsOf: Corpus.testImages.appendingPathComponent("photo-1600x1200.jpg"))
        #expect(TurboJPEGPool.bringsItsOwnTables([UInt8](other)))
        for _ in 0..<3 {
            _ = try JPEGCodec.decode(other, options: DecodeOptions())  // leaves its handle (and tables) in the pool
            let decoded = try JPEGCodec.decode(tableless, options: DecodeOptions())
            #expect(decoded.damage.isEmpty, "\(decoded.warnings)")
            #expect(decoded.warnings == ["Corrupt JPEG data: 6 extraneous bytes before marker 0xd1"])
        }
    }
}
