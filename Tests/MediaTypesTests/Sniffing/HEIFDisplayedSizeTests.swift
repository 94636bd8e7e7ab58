import Foundation
import MediaTypes
import TestSupport
import Testing

/// The sniffer's HEIF size is the primary item's as displayed: `clap` crops, `irot` turns, a
/// grid gives its output size, whatever other `ispe` (tiles, a larger unrelated item) the file holds.
@Suite("HEIF displayed size")
struct HEIFDisplayedSizeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let width: Int
        let height: Int
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "heic-8bit-orient6.heic", width: 682, height: 1024),  // coded 1024x682, irot 270
        Case(name: "heic-10bit-orient8.heic", width: 640, height: 960),  // coded 960x640, irot 90
        Case(name: "avif-alpha-orient2.avif", width: 800, height: 600),  // imir only
        Case(name: "clap-48x40.heic", width: 48, height: 40),  // coded 64x64
        Case(name: "grid-2x2-irot90.heic", width: 120, height: 100),  // grid 100x120 of 64x64 tiles, irot 90
        Case(name: "grid-2x2.avif", width: 100, height: 120),
    ])
    func sniffedSizeIsTheDisplayedSize(_ fixture: Case) throws {
        let url = Corpus.testImages.appendingPathComponent("formats/heif/\(fixture.name)")
        let sniffed = try Sniffer.sniff([UInt8](try Data(contentsOf: url)))
        #expect(sniffed.width == fixture.width && sniffed.height == fixture.height, "\(sniffed)")
    }

    /// `HEIFPrimaryImage` itself, which the codec's checks share: the file's only `ispe` is the
    /// coded 64x64; the displayed size is the `clap`'s 48x40.
    @Test func thePrimaryImageAppliesTheCleanAperture() throws {
        let url = Corpus.testImages.appendingPathComponent("formats/heif/clap-48x40.heic")
        let bytes = [UInt8](try Data(contentsOf: url))
        let size = bytes.withUnsafeBytes { (try? HEIFPrimaryImage($0))?.displayedSize }
        #expect(size?.width == 48 && size?.height == 40)
    }
}
