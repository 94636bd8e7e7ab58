import Foundation
import ImageCodecs
import MediaTypes
import TestSupport
import Testing

@testable import ImageCodecs

/// HEIC and AVIF through libheif, on the fixtures in TestImages/formats/heif (made by its
/// make-fixtures.sh from corpus photos): each carries an orientation as `irot`/`imir`, and
/// libheif's decode must come out upright, at the size `readInfo` announced.
@Suite("HEIF codec (libheif)")
struct HEIFTests {
    struct Fixture: CustomTestStringConvertible, Sendable {
        let name: String
        let format: MediaFormat
        /// The displayed size (after irot), the coded size, and the facts readInfo must give.
        let upright: (width: Int, height: Int)
        let coded: (width: Int, height: Int)
        let alpha: Bool
        let bits: Int
        let transforms: HEIFTransforms
        var testDescription: String { name }

        func data() throws -> Data {
            try Data(contentsOf: Corpus.testImages.appendingPathComponent("formats/heif/\(name)"))
        }
    }

    static let fixtures = [
        Fixture(
            name: "heic-8bit-orient6.heic", format: .heic, upright: (682, 1024), coded: (1024, 682), alpha: false,
            bits: 8, transforms: HEIFTransforms(quarterTurns: 3, mirrored: false)),
        Fixture(
            name: "heic-10bit-orient8.heic", format: .heic, upright: (640, 960), coded: (960, 640), alpha: false,
            bits: 10, transforms: HEIFTransforms(quarterTurns: 1, mirrored: false)),
        Fixture(
            name: "avif-alpha-orient2.avif", format: .avif, upright: (800, 600), coded: (800, 600), alpha: true,
            bits: 8, transforms: HEIFTransforms(quarterTurns: 0, mirrored: true)),
    ]

    @Test(arguments: fixtures)
    func sniffedAsTheirFormatWithTheDisplayedSizeAndAlpha(_ fixture: Fixture) throws {
        let sniffed = try Sniffer.sniff([UInt8](try fixture.data()))
        #expect(sniffed.format == fixture.format)
        // The sniffer gives the primary item's size as displayed (irot applied), as `prepare` does.
        #expect(sniffed.width == fixture.upright.width && sniffed.height == fixture.upright.height)
        #expect(sniffed.hasAlpha == fixture.alpha)
        #expect(ImageCodecs.decodableFormats.contains(fixture.format))
    }

    @Test(arguments: fixtures)
    func transformsAreReadFromTheBoxes(_ fixture: Fixture) throws {
        let data = try fixture.data()
        let transforms = data.withUnsafeBytes { HEIFTransforms.read($0) }
        #expect(transforms == fixture.transforms)
    }

    @Test(arguments: fixtures)
    func readInfoGivesTheUprightSizeWithoutDecoding(_ fixture: Fixture) throws {
        let info = try ImageCodecs.readInfo(try fixture.data(), format: fixture.format)
        #expect(info.width == fixture.upright.width && info.height == fixture.upright.height)
        #expect(info.hasAlpha == fixture.alpha)
        #expect(info.bitDepth == fixture.bits)
        #expect(info.colorSpace == nil)
        #expect(info.frames == 1)
        #expect(info.exif == nil, "an Exif orientation must not reach the engine: libheif applies irot/imir")
    }

    @Test(arguments: fixtures)
    func decodesUprightAtTheAnnouncedSize(_ fixture: Fixture) throws {
        let image = try ImageCodecs.decode(try fixture.data(), format: fixture.format)
        #expect(image.pixels.width == fixture.upright.width && image.pixels.height == fixture.upright.height)
        #expect(image.sourceWidth == fixture.upright.width && image.sourceHeight == fixture.upright.height)
        #expect(image.pixels.layout == (fixture.alpha ? .rgba : .rgb))
        #expect(!image.isDamaged)
    }

    @Test func alphaSurvives() throws {
        let fixture = Self.fixtures[2]
        let image = try HEIFCodec.decode(try fixture.data(), options: DecodeOptions())
        // The vignette made by make-fixtures.sh: transparent corners, an opaque centre.
        let p = image.pixels
        #expect(p[0, 0, 3] < 16 && p[p.width - 1, p.height - 1, 3] < 16)
        #expect(p[p.width / 2, p.height / 2, 3] > 240)
    }

    @Test func rowsAreTheDecode() throws {
        let fixture = Self.fixtures[0]
        let data = try fixture.data()
        let whole = try HEIFCodec.decode(data, options: DecodeOptions())
        let rows = try ImageCodecs.withRows(data, format: .heic) { source in
            #expect(source.workingMemory >= source.width * source.height * 3)
            return try source.readAll()
        }
        #expect(rows == whole.pixels)
    }

    @Test func pixelBudgetRefusesBeforeDecoding() throws {
        let fixture = Self.fixtures[0]
        var options = DecodeOptions()
        options.pixelBudget = 1024 * 682 - 1
        #expect(throws: CodecError.pixelBudgetExceeded(width: 682, height: 1024, budget: 1024 * 682 - 1)) {
            try ImageCodecs.decode(try fixture.data(), format: .heic, options: options)
        }
        options.pixelBudget = 1024 * 682
        #expect(try ImageCodecs.decode(try fixture.data(), format: .heic, options: options).pixels.pixelCount == 1024 * 682)
    }

    @Test(arguments: fixtures)
    func truncatedFilesFailCleanly(_ fixture: Fixture) throws {
        let data = try fixture.data()
        for length in [data.count / 2, data.count - 100, 600, 40] {
            do {
                _ = try ImageCodecs.decode(data.prefix(length), format: fixture.format)
                Issue.record("\(fixture.name) cut to \(length) bytes decoded")
            } catch .corrupt(let codec, let message) {
                // The box walk (before libheif) or libheif itself.
                #expect(["libheif", "heif-boxes"].contains(codec))
                #expect(!message.isEmpty)
            } catch {
                Issue.record("\(fixture.name) cut to \(length) bytes: \(error)")
            }
        }
    }

    @Test func notHEIFAtAllIsCorrupt() {
        let bytes = Data("this is not an ISO base media file at all".utf8)
        #expect(throws: CodecError.self) { try HEIFCodec.readInfo(bytes) }
        #expect(throws: CodecError.self) { try HEIFCodec.readInfo(Data()) }
    }

    @Test func versionIsReported() {
        #expect(CodecVersions.heif.wholeMatch(of: /\d+\.\d+\.\d+/) != nil, "\(CodecVersions.heif)")
    }
}
