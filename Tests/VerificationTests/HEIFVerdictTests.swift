import Foundation
import TestSupport
import Testing
import Verification

/// What `verify` says of HEIF files whose boxes and streams disagree or which use a feature
/// libheif 1.15 lacks, on the fixtures of
/// TestImages/formats/heif/make-size-fixtures.sh.
@Suite("verify: HEIF structure")
struct HEIFVerdictTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let verdict: String
        let errorCode: Int?
        /// Words the reason must hold.
        let reason: String
        var testDescription: String { name }
    }

    static func report(_ name: String) throws -> FileReport {
        let url = Corpus.testImages.appendingPathComponent("formats/heif/\(name)")
        return Verifier().verify(data: try Data(contentsOf: url), path: name, fileExtension: url.pathExtension)
    }

    @Test(arguments: [
        // A 108 MP stream behind a 64x64 ispe: refused as damaged, from the boxes (was "transcode").
        Case(name: "coded-12000x9000-ispe-64x64.heic", verdict: "rejected", errorCode: 105, reason: "12000x9000"),
        Case(name: "coded-12000x9000-ispe-64x64.avif", verdict: "rejected", errorCode: 105, reason: "12000x9000"),
        // Unsupported, not corrupt (were 105 "damaged or truncated", or grey and accepted).
        Case(name: "iden.heic", verdict: "rejected", errorCode: 101, reason: "'iden'"),
        Case(name: "iden-of-iden.heic", verdict: "rejected", errorCode: 101, reason: "'iden'"),
        Case(name: "pred.heic", verdict: "rejected", errorCode: 101, reason: "'pred'"),
        Case(name: "base-avc1.heic", verdict: "rejected", errorCode: 101, reason: "'base'"),
        Case(name: "grid-2x2-irot90.heic", verdict: "transcode", errorCode: nil, reason: ""),
    ])
    func verdicts(_ c: Case) throws {
        let report = try Self.report(c.name)
        #expect(report.verdict == c.verdict, "\(c.name): \(report.reason ?? "")")
        #expect(report.errorCode == c.errorCode, "\(c.name): \(report.reason ?? "")")
        #expect(c.reason.isEmpty || (report.reason ?? "").contains(c.reason), "\(report.reason ?? "")")
    }

    /// `verify`'s dimensions are the displayed size, as `prepare`'s source_width/height are.
    @Test(arguments: [
        ("heic-8bit-orient6.heic", 682, 1024), ("clap-48x40.heic", 48, 40), ("grid-2x2-irot90.heic", 120, 100),
    ])
    func dimensionsAreTheDisplayedSize(_ name: String, _ width: Int, _ height: Int) throws {
        let report = try Self.report(name)
        #expect(report.width == width && report.height == height, "\(name): \(report.width ?? 0)x\(report.height ?? 0)")
    }
}
