import Foundation
import ImageCodecs
import MediaTypes
import TestSupport
import Testing

/// Inputs the fuzz harnesses (Fuzz/, `make fuzz`) found crashing, kept in
/// `TestImages/regressions/<harness>/` and replayed here without sanitizers. Each must decode the
/// same way twice (a read of freed or uninitialised memory shows up as a difference) or throw a
/// `CodecError`.
@Suite("Fuzz regressions: codecs") struct FuzzRegressionTests {
    static func files(_ harness: String) -> [URL] {
        let folder = Corpus.testImages.appendingPathComponent("regressions/\(harness)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") }.map { folder.appendingPathComponent($0) }
    }

    static let cases: [(harness: String, format: MediaFormat)] = [("png", .png), ("jpeg", .jpeg), ("webp", .webp)]

    static var inputs: [URL] { cases.flatMap { files($0.harness) } }

    @Test func theRegressionFoldersHoldTheFoundInputs() {
        #expect(Self.files("png").map(\.lastPathComponent).contains("uaf-begin-read-0e1efaa4.png"))
    }

    @Test(arguments: inputs)
    func decodesDeterministicallyOrThrows(file: URL) throws {
        let harness = file.deletingLastPathComponent().lastPathComponent
        let format = try #require(Self.cases.first { $0.harness == harness }?.format)
        let data = try Data(contentsOf: file)
        let options = DecodeOptions(minimumSize: (64, 64), pixelBudget: 4_000_000)
        do throws(CodecError) {
            let first = try ImageCodecs.decode(data, format: format, options: options)
            let second = try ImageCodecs.decode(data, format: format, options: options)
            #expect(first.pixels == second.pixels, "\(file.lastPathComponent) decodes differently each time")
            #expect(first.sourceWidth > 0 && first.sourceHeight > 0)
        } catch {
            #expect(!error.description.isEmpty)
        }
    }

    /// The input behind the fix "PNG: keep the input pinned from begin_read to finish_read": a
    /// 32x32 4-bit grey PNG with iTXt chunks, read by libpng from memory after `begin`.
    @Test func pngReadFromMemoryAfterBeginDecodes() throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent("regressions/png/uaf-begin-read-0e1efaa4.png"))
        let image = try PNGCodec.decode(data, options: DecodeOptions())
        #expect(image.sourceWidth == 32 && image.sourceHeight == 32)
        #expect(image.pixels.layout == .gray)
    }
}
