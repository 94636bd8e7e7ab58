import Foundation
import MediaTypes
import TestSupport
import Testing

@testable import ImageCodecs
@testable import ImageEngine

/// The validation decode (`ImageProcessor.decodeToValidate`, what a pass-through JPEG gets in
/// `prepare` and `verify`) reads a baseline file by its DC coefficients when it can, a progressive
/// one by `JPEGProgressiveReader` (`validationByDCReader`). Held here to libjpeg's 1/8 decode, which
/// they stand in for: the same log, or the same error, for whole files and damaged ones, lenient
/// and strict.
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

    /// Whether the DC reader validates `data` (else libjpeg does). With the own decoding off
    /// (`PUSHATTACH_JPEG_DECODER=libjpeg`) it takes nothing, which every test here then expects.
    static func takenByDC(_ data: Data) -> Bool {
        JPEGCodec.validateByDC(data, options: DecodeOptions(minimumSize: (1, 1))) != nil
    }

    /// Whole files, and whether the DC reader (or, for a progressive file, `JPEGProgressiveReader`)
    /// takes each (else libjpeg validates it): only the three-component YCbCr files sampled as
    /// libjpeg's upsampler takes them, decoded at 1/8 with no warning.
    static let files: [(name: String, takenByDC: Bool)] = [
        ("codecs/dc/restart-every-mcu-420.jpg", true), ("codecs/dc/restart-two-rows-444.jpg", true),
        ("codecs/dc/optimized-422.jpg", true), ("codecs/dc/quality-100-420.jpg", true),
        ("codecs/dc/sampled-440.jpg", true), ("codecs/dc/sampled-411.jpg", false), ("codecs/dc/gray.jpg", false),
        ("codecs/dc/progressive.jpg", true), ("codecs/dc/arithmetic.jpg", false), ("progressive-640x480.jpg", true),
        ("conformance/jpeg/jpeg-decoder/partial_progressive.jpg", false),
        ("conformance/jpeg/jpeg-decoder/icc_missing_chunk.jpeg", false),
        ("conformance/jpeg/jpeg-decoder/extraneous-data.jpg", false),
        ("conformance/jpeg/jpeg-decoder/restarts.jpg", true),
        ("conformance/jpeg/jpeg-decoder/16bit-qtables.jpg", false),
        ("conformance/jpeg/jpeg-decoder/non-interleaved-mcu.jpg", true),
        ("codecs/dc/progressive-restart-every-mcu-420.jpg", true), ("codecs/dc/progressive-restart-rows-422.jpg", true),
        ("conformance/jpeg/jpeg-decoder/progressive3.jpg", true),
        ("conformance/jpeg/jpeg-decoder/progressive-missing-ac.jpg", false),
        ("conformance/jpeg/jpeg-decoder/progressive-missing-dc.jpg", false),
        ("conformance/jpeg/jpeg-decoder/mozilla/jpg-progressive.jpg", true),
        ("conformance/jpeg/libjpeg-turbo/testimgp.jpg", true),
        // Progressive files libjpeg refuses or warns about where only the nonzero bits are
        // tracked (codecs/make-progressive-edge-cases.py; found by review): left to libjpeg.
        ("codecs/dc/progressive-edge/sos-out-of-order.jpg", false), ("codecs/dc/progressive-edge/no-dqt.jpg", false),
        ("codecs/dc/progressive-edge/chroma-dqt-late.jpg", false),
        ("codecs/dc/progressive-edge/coefficient-wraps.jpg", false),
        ("codecs/dc/progressive-edge/coefficient-control.jpg", true),
    ]

    /// Whole files: the same outcome both ways, and the route the table says.
    @Test(arguments: files.map(\.name))
    func wholeFilesValidateAsLibjpegDoes(_ name: String) throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent(name))
        let expected = try #require(Self.files.first { $0.name == name }).takenByDC && JPEGCodec.ownDecoding
        #expect(Self.takenByDC(data) == expected, "\(name): taken by the DC reader \(!expected)")
        for strict in [false, true] {
            #expect(
                Self.outcome(data, strict: strict, libjpeg: false) == Self.outcome(data, strict: strict, libjpeg: true),
                "\(name), strict \(strict)")
        }
    }

    /// A taken fixture, changed where damage detection meets the end of the file and the
    /// header: bytes after EOI (both routes ignore them), a COM segment or a restart marker
    /// between the data and EOI (the reader leaves those to libjpeg), an ICC profile (taken,
    /// and the same profile as libjpeg's). The same outcome both ways, lenient and strict.
    @Test func endsAndProfilesValidateAsLibjpegDoes() throws {
        let original = [UInt8](try Data(contentsOf: Corpus.testImages.appendingPathComponent("codecs/dc/optimized-422.jpg")))
        #expect(original.suffix(2) == [0xFF, 0xD9])
        let body = Array(original.dropLast(2))
        let profile = [UInt8](try Data(contentsOf: Corpus.testImages.appendingPathComponent("codecs/canon_s90.icc")))
        let marker = Array("ICC_PROFILE".utf8) + [0, 1, 1]
        let app2Length = 2 + marker.count + profile.count
        let withProfile =
            [0xFF, 0xD8, 0xFF, 0xE2, UInt8(app2Length >> 8), UInt8(app2Length & 0xFF)] + marker + profile
            + original.dropFirst(2)
        let variants: [(String, [UInt8], Bool)] = [
            ("bytes after EOI", original + Array("trailing".utf8), true),
            ("COM before EOI", body + [0xFF, 0xFE, 0x00, 0x05, 0x61, 0x62, 0x63] + [0xFF, 0xD9], false),
            ("RST before EOI", body + [0xFF, 0xD0, 0xFF, 0xD9], false),
            ("no EOI", body, false),
            ("an ICC profile", withProfile, true),
        ]
        for (what, bytes, taken) in variants {
            let data = Data(bytes)
            #expect(Self.takenByDC(data) == (taken && JPEGCodec.ownDecoding), "\(what): taken by the DC reader \(!taken)")
            for strict in [false, true] {
                #expect(
                    Self.outcome(data, strict: strict, libjpeg: false) == Self.outcome(data, strict: strict, libjpeg: true),
                    "\(what), strict \(strict)")
            }
        }
        guard JPEGCodec.ownDecoding else { return }
        let read = try #require(JPEGCodec.validateByDC(Data(withProfile), options: DecodeOptions(minimumSize: (1, 1))))
        #expect(read.iccProfile == profile)
        let input = EncodedInput(Data(withProfile), format: .jpeg)
        let options = DecodeOptions(minimumSize: (1, 1))
        let libjpeg = try ImageProcessor.stream(input, options: options) { source throws(CodecError) in
            try source.discardRows()
        }
        #expect(libjpeg.iccProfile == read.iccProfile)
        #expect(libjpeg.width == read.width && libjpeg.height == read.height)
    }

    @Test func theReaderTakesTheBaselineFixtures() throws {
        for name in ["codecs/dc/restart-every-mcu-420.jpg", "codecs/dc/optimized-422.jpg", "codecs/dc/quality-100-420.jpg"] {
            #expect(
                Self.takenByDC(try Data(contentsOf: Corpus.testImages.appendingPathComponent(name))) == JPEGCodec.ownDecoding,
                "\(name)")
        }
        // A 4x4 progressive file: refused by both readers, as a 4x4 file decodes at 1/4 for a
        // 1x1 box, not 1/8 (Scaling.jpeg).
        let tiny = try Data(contentsOf: Corpus.testImages.appendingPathComponent("conformance/jpeg/jpeg-decoder/partial_progressive.jpg"))
        #expect(!Self.takenByDC(tiny))
    }

    /// Damaged files (`JPEGDamage`, as `JPEGDCDecoderTests` uses them): cut short, a bit flipped,
    /// a byte changed, a stray restart marker, fill and a byte, anywhere after the first scan's
    /// header (so in a progressive file's later scans and the tables between them too). The same
    /// outcome both ways, lenient and strict; both routes are exercised. Deterministic (a fixed LCG).
    @Test(arguments: [
        "codecs/dc/restart-every-mcu-420.jpg", "codecs/dc/optimized-422.jpg", "codecs/dc/progressive.jpg",
        "progressive-640x480.jpg", "codecs/dc/progressive-restart-every-mcu-420.jpg",
        "codecs/dc/progressive-restart-rows-422.jpg", "conformance/jpeg/libjpeg-turbo/testimgp.jpg",
    ])
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
        if JPEGCodec.ownDecoding {
            #expect(taken > 0 && refused > 0, "taken \(taken), refused \(refused)")
        } else {
            #expect(taken == 0, "the own decoding is off, yet the DC reader took \(taken)")
        }
    }
}
