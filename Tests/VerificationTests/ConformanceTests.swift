import Foundation
import MediaTypes
import TestSupport
import Testing
import Verification

/// The foundation's acceptance points, over the conformance set (or `PUSHATTACH_CORPUS`).
@Suite("verify conformance")
struct ConformanceTests {
    let verifier = Verifier()

    static let pngSuite = Corpus.files(in: "pngsuite", extensions: ["png"]).filter { !$0.path.contains("/extra/") }
    static let validPNGs = pngSuite.filter { !$0.lastPathComponent.hasPrefix("x") }
    static let invalidPNGs = pngSuite.filter { $0.lastPathComponent.hasPrefix("x") }

    @Test(arguments: validPNGs)
    func validPngSuiteFilesAreAccepted(file: URL) {
        let report = verifier.verify(fileAt: file)
        #expect(report.verdict == "accepted", "\(file.lastPathComponent): \(report.reason ?? "")")
        #expect(report.format == .png)
    }

    @Test(arguments: invalidPNGs)
    func brokenPngSuiteFilesAreCorrupt(file: URL) {
        let report = verifier.verify(fileAt: file)
        #expect(report.verdict == "rejected", "\(file.lastPathComponent)")
        #expect(
            report.errorCode == 105,
            "\(file.lastPathComponent): \(report.errorCode.map(String.init) ?? "nil") \(report.reason ?? "")")
    }

    /// WebP files libwebp's own dwebp decodes (VERIFY.tsv) come out `transcode`.
    static let decodableWebP: [URL] = {
        // No VERIFY.tsv leaves the list empty, and corpusListsWebP fails.
        guard let tsv = try? String(contentsOf: Corpus.url("VERIFY.tsv"), encoding: .utf8) else { return [] }
        return tsv.split(separator: "\n").compactMap { line -> URL? in
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard cols.count > 9, cols[0].hasPrefix("webp/"), cols[8] == "dwebp" || cols[8] == "webpinfo",
                cols[9].hasPrefix("OK")
            else { return nil }
            return Corpus.url(String(cols[0]))
        }
    }()

    /// Every WebP of the corpus is one dwebp or webpinfo decoded.
    @Test func corpusListsWebP() {
        #expect(!Self.decodableWebP.isEmpty)
        #expect(Self.decodableWebP.count == Corpus.files(in: "webp", extensions: ["webp"]).count)
    }

    @Test(arguments: decodableWebP)
    func decodableWebPIsTranscode(file: URL) {
        let report = verifier.verify(fileAt: file)
        #expect(report.verdict == "transcode", "\(file.lastPathComponent): \(report.reason ?? "")")
    }

    /// 12-bit, lossless and other variants TurboJPEG cannot decode: a clear reason, never a crash.
    @Test(arguments: [
        "jpeg/jpegsuite/extended_huffman__32x32x12_grayscale.jpg",
        "jpeg/jpegsuite/extended_huffman__32x32x12_ycbcr_interleaved.jpg",
        "jpeg/jpegsuite/lossless_huffman__32x32x8_grayscale_predictor7.jpg",
        "jpeg/jpegsuite/lossless_huffman__32x32x16_grayscale.jpg",
        "jpeg/libjpeg-turbo/testorig12.jpg",
        "jpeg/misc/sharp_testimgl_lossless_sof3.jpg",
        "jpeg/jpegsuite/extended_arithmetic__32x32x12_ycbcr_interleaved.jpg",
    ])
    func undecodableJPEGVariantsAreRejectedClearly(path: String) {
        let report = verifier.verify(fileAt: Corpus.url(path))
        #expect(report.verdict == "rejected", "\(path)")
        #expect(report.errorCode != nil)
        let reason = report.reason ?? ""
        #expect(!reason.isEmpty)
    }

    /// Every media file of the corpus gets the verdict, error code and format that
    /// `TestImages/verdicts.tsv` gives it (a file with no row fails: add one).
    @Test(arguments: Corpus.files(in: ".").map(Corpus.relativePath))
    func verdictMatchesTheTable(path: String) throws {
        let expected = try #require(ExpectedVerdicts.rows[path], "\(path) has no row in TestImages/verdicts.tsv")
        let report = verifier.verify(fileAt: Corpus.url(path))
        #expect(report.verdict == expected.verdict, "\(path): \(report.reason ?? "")")
        #expect(report.errorCode == expected.errorCode, "\(path): \(report.reason ?? "")")
        #expect(report.format.rawValue == expected.format, "\(path)")
        if report.verdict == "rejected" { #expect(report.reason?.isEmpty == false, "\(path)") }
    }

    /// Photos and PngSuite cut at 10%, 50% and 99% of their length: corrupt, every time.
    static let truncationInputs: [URL] = Corpus.files(in: "photos") + validPNGs

    @Test(arguments: truncationInputs)
    func truncatedFilesAreCorrupt(file: URL) throws {
        let data = try Data(contentsOf: file)
        for fraction in [0.10, 0.50, 0.99] {
            let cut = data.prefix(max(1, Int(Double(data.count) * fraction)))
            let report = verifier.verify(data: cut, path: file.lastPathComponent, fileExtension: file.pathExtension)
            #expect(report.verdict == "rejected", "\(file.lastPathComponent) at \(fraction)")
            #expect(report.errorCode == 105, "\(file.lastPathComponent) at \(fraction): \(report.reason ?? "")")
        }
    }

    @Test func pngJustOverTheCapIsRejectedWith102AndJustUnderIsAccepted() throws {
        let base = try Data(contentsOf: Corpus.testImages.appendingPathComponent("opaque-300x200.png"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pa-cap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let over = dir.appendingPathComponent("over.png"), under = dir.appendingPathComponent("under.png")
        try PNGPadding.padded(base, toExactly: 10_000_001).write(to: over)
        try PNGPadding.padded(base, toExactly: 9_999_999).write(to: under)
        let overReport = verifier.verify(fileAt: over), underReport = verifier.verify(fileAt: under)
        #expect(overReport.bytes == 10_000_001)
        // iOS would refuse it as it is (102); prepare re-encodes it under the cap.
        #expect(overReport.iosVerdict == "rejected" && overReport.iosErrorCode == 102)
        #expect(overReport.verdict == "transcode" && overReport.action == .fit, "\(overReport.reason ?? "")")
        #expect(overReport.errorCode == nil)
        #expect(underReport.verdict == "accepted", "\(underReport.reason ?? "")")
        #expect(underReport.iosVerdict == "accepted")
    }

    @Test func jpegNamedPngIsFlagged() {
        let report = verifier.verify(fileAt: Corpus.testImages.appendingPathComponent("jpeg-named.png"))
        #expect(report.format == .jpeg)
        #expect(report.iosVerdict == "rejected" && report.iosErrorCode == 101)
        #expect(report.verdict == "transcode" && report.action == .rename && report.outputFormat == .jpeg)
        #expect(report.reason?.contains(".jpg") == true)
    }

    /// iOS takes the photo as it is; prepare fits it to the long side, which the reason says (and
    /// no warning repeats).
    @Test func largePhotoIsFittedToTheLongSide() {
        let report = verifier.verify(fileAt: Corpus.url("photos/kodak_pixpro_fz201.jpg"))
        #expect(report.iosVerdict == "accepted")
        #expect(report.verdict == "transcode" && report.action == .fit, "\(report.reason ?? "")")
        #expect(report.reason == "prepare re-encodes it as JPEG: 4608x3456 is over the 2048-pixel long side")
    }

    @Test func fastModeSkipsTheDecode() throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent("truncated.jpg"))
        let fast = Verifier(options: VerifyOptions(decode: false))
        // The header is intact, so only a decode can tell it is cut short.
        let report = fast.verify(data: data, path: "truncated.jpg", fileExtension: "jpg")
        #expect(report.width == 1600)
        #expect(Verifier().verify(data: data, path: "truncated.jpg", fileExtension: "jpg").errorCode == 105)
    }

    /// A PNG cut inside its image data has a whole header: its size is reported, it is damaged
    /// (105) by default and used as decoded under `acceptDamaged`, like a JPEG cut in its scan.
    @Test(arguments: [20_000, 50_000])
    func pngCutInImageDataIsDamagedNotHeaderDamaged(_ length: Int) throws {
        let whole = try Data(contentsOf: Corpus.testImages.appendingPathComponent("opaque-300x200.png"))
        let cut = whole.prefix(length)
        let refused = Verifier().verify(data: cut, path: "cut.png", fileExtension: "png")
        #expect(refused.errorCode == 105, "\(refused.reason ?? "")")
        #expect(refused.width == 267 && refused.height == 200)
        #expect(refused.reason?.contains("header") == false, "\(refused.reason ?? "")")
        let accepted = Verifier(options: VerifyOptions(policy: AttachmentPolicy(acceptDamaged: true))).verify(
            data: cut, path: "cut.png", fileExtension: "png")
        #expect(accepted.isAccepted, "\(accepted.reason ?? "")")
        #expect(accepted.width == 267 && accepted.height == 200)
        #expect(accepted.warnings.contains { $0.contains("damaged PNG") }, "\(accepted.warnings)")
    }
}

/// Pixel bombs are refused on their header: the child process never grows a big buffer.
@Suite("pixel bombs", .serialized)
struct PixelBombTests {
    @Test(arguments: ["pngsuite/extra/65536-uint32-limit.png", "jpeg/misc/sharp_giant-image_20000x14000.jpg"])
    func bombsAreRefusedBeforeDecoding(path: String) throws {
        let (result, peakRSS) = try ProcessRunner.runMeasuringMemory(
            "pushattach", ["verify", "--json", Corpus.url(path).path])
        #expect(result.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["verdict"] as? String == "rejected")
        #expect((object["reason"] as? String)?.contains("pixel budget") == true)
        // A decode would need 840 MB (the JPEG) or 17 GB (the PNG); the check on the header
        // keeps the child at the size of the program itself.
        #expect(peakRSS > 0)
        #expect(peakRSS < 64_000_000, "peak RSS \(peakRSS)")
    }
}
