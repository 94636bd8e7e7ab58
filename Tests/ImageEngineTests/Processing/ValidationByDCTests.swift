import Foundation
import MediaTypes
import TestSupport
import Testing

@testable import ImageCodecs
@testable import ImageEngine

/// The validation decode (`ImageProcessor.decodeToValidate`, what a pass-through JPEG gets in
/// `prepare` and `verify`) reads a baseline file by its DC coefficients when it can
/// (`validatedByDC`). Held here to libjpeg's 1/8 decode, which it stands in for: the same log,
/// or the same error, for whole files and damaged ones, lenient and strict.
@Suite struct ValidationByDCTests {
    /// What validating `data` ends in: the log's steps and warnings, or the error. With
    /// `libjpeg`, the decode `decodeToValidate` made before the DC reader.
    static func outcome(_ data: Data, strict: Bool, libjpeg: Bool) -> String {
        let input = EncodedInput(data, format: .jpeg)
        var policy = AttachmentPolicy()
        policy.strict = strict
        let limits = ProcessingLimits(policy: policy)
        var log = ProcessingLog()
        do throws(ProcessingError) {
            let info: ImageInfo
            do { info = try input.readInfo() } catch { throw .codec(error) }
            let stored = Size(width: info.width, height: info.height)
            if libjpeg {
                let options = ImageProcessor.decodeOptions(stored: stored, covering: Size(width: 1, height: 1), .up, limits)
                let decode = try ImageProcessor.stream(input, options: options) { source throws(CodecError) in
                    try source.discardRows()
                }
                try ImageProcessor.record(decode, stored: stored, format: .jpeg, limits: limits, &log)
            } else {
                try ImageProcessor.decodeToValidate(input, stored: stored, .up, limits, &log)
            }
            return "steps \(log.steps), warnings \(log.warnings)"
        } catch {
            return "error \(error)"
        }
    }

    /// Whether the DC reader validates `data` (else libjpeg does).
    static func takenByDC(_ data: Data) -> Bool {
        JPEGCodec.validateByDC(data, options: DecodeOptions(minimumSize: (1, 1))) != nil
    }

    static let files = [
        "codecs/dc/restart-every-mcu-420.jpg", "codecs/dc/restart-two-rows-444.jpg", "codecs/dc/optimized-422.jpg",
        "codecs/dc/quality-100-420.jpg", "codecs/dc/sampled-440.jpg", "codecs/dc/sampled-411.jpg",
        "codecs/dc/gray.jpg", "codecs/dc/progressive.jpg", "codecs/dc/arithmetic.jpg",
        "conformance/jpeg/jpeg-decoder/partial_progressive.jpg", "conformance/jpeg/jpeg-decoder/icc_missing_chunk.jpeg",
        "conformance/jpeg/jpeg-decoder/extraneous-data.jpg", "conformance/jpeg/jpeg-decoder/restarts.jpg",
        "conformance/jpeg/jpeg-decoder/16bit-qtables.jpg", "conformance/jpeg/jpeg-decoder/non-interleaved-mcu.jpg",
    ]

    /// Whole files: the same outcome both ways; the baseline YCbCr ones taken by the DC reader.
    @Test(arguments: files)
    func wholeFilesValidateAsLibjpegDoes(_ name: String) throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent(name))
        for strict in [false, true] {
            #expect(
                Self.outcome(data, strict: strict, libjpeg: false) == Self.outcome(data, strict: strict, libjpeg: true),
                "\(name), strict \(strict)")
        }
    }

    @Test func theReaderTakesTheBaselineFixtures() throws {
        for name in ["codecs/dc/restart-every-mcu-420.jpg", "codecs/dc/optimized-422.jpg", "codecs/dc/quality-100-420.jpg"] {
            #expect(Self.takenByDC(try Data(contentsOf: Corpus.testImages.appendingPathComponent(name))), "\(name)")
        }
        // A 4x4 progressive file decodes at 1/1 for a 1x1 box: never the DC reader's.
        let tiny = try Data(contentsOf: Corpus.testImages.appendingPathComponent(Self.files[9]))
        #expect(!Self.takenByDC(tiny))
    }

    /// Damaged files (`JPEGDamage`, as `JPEGDCDecoderTests` uses them): cut short, a bit flipped,
    /// a byte changed, a stray restart marker, fill and a byte. The same outcome both ways, lenient
    /// and strict; both readers are exercised. Deterministic (a fixed LCG).
    @Test(arguments: ["codecs/dc/restart-every-mcu-420.jpg", "codecs/dc/optimized-422.jpg"])
    func damagedFilesValidateAsLibjpegDoes(_ name: String) throws {
        let original = [UInt8](try Data(contentsOf: Corpus.testImages.appendingPathComponent(name)))
        let sos = try #require(try? JPEGSegments.read(original).last)
        let scanStart = sos.payloadRange.upperBound
        var taken = 0, refused = 0
        let variants = JPEGDamage.variants(of: original, scanStart: scanStart, count: 100, seed: 0x2545_F491_4F6C_DD1D)
        for (trial, bytes) in variants.enumerated() {
            let data = Data(bytes)
            if Self.takenByDC(data) { taken += 1 } else { refused += 1 }
            let strict = trial % 2 == 1
            #expect(
                Self.outcome(data, strict: strict, libjpeg: false) == Self.outcome(data, strict: strict, libjpeg: true),
                "\(name) trial \(trial)")
        }
        #expect(taken > 0 && refused > 0, "taken \(taken), refused \(refused)")
    }
}
