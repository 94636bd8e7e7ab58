import Foundation
import MediaTypes
import TestSupport
import Testing

@testable import ImageCodecs

/// The libjpeg scanline decoder (`JPEGRowDecoder`) against the TurboJPEG `tjDecompress2` decode
/// it replaced (`TurboJPEGReference`): the same pixels at every DCT scale, in any row
/// chunking, with the same warnings policy, the scan limit and strict mode; and the DC-only
/// early stop for progressive files at 1/8, which must not change a pixel.
///
/// Tolerance: none. Both run libjpeg-turbo 2.1 with the accurate integer IDCT, fancy
/// upsampling and the same output colour space.
@Suite struct JPEGRowDecoderTests {
    /// Every JPEG of the corpus: conformance files, photos, the broken set, orientation samples.
    static let corpus: [CorpusFile] = ["jpeg", "photos", "broken", "orientation", "small"].flatMap {
        CorpusFile.all(in: $0, extensions: ["jpg", "jpeg"])
    }
    /// Eighths: 1/8, 1/4, 3/8, 1/2, 1.
    static let eighths = [1, 2, 3, 4, 8]
    /// Files the reference decodes within the default pixel budget.
    static let decodable = corpus.filter { file in
        guard let bytes = try? [UInt8](file.data), let header = TurboJPEGReference.header(bytes) else { return false }
        return header.width * header.height <= DecodeOptions().pixelBudget
    }
    static let progressive = decodable.filter { file in
        guard let data = try? file.data, let info = try? JPEGCodec.readInfo(data) else { return false }
        return info.isProgressive == true
    }

    @Test func corpusIsPresent() {
        #expect(Self.corpus.count >= 120)
        #expect(Self.decodable.count >= 80)
        #expect(Self.progressive.count >= 10)
        for name in ["mei_issue242_progressive.jpg", "testimgp.jpg", "sharp_cmyk_no_profile.jpg", "testimggray.jpg"] {
            #expect(Self.decodable.contains { $0.name == name }, "\(name)")
        }
    }

    /// The output size of `eighths`/8 for a `width` x `height` source (TurboJPEG's TJSCALED).
    static func scaled(_ width: Int, _ height: Int, eighths: Int) -> (width: Int, height: Int) {
        ((width * eighths + 7) / 8, (height * eighths + 7) / 8)
    }

    /// Options whose `minimumSize` makes `Scaling.jpeg` pick the factor TurboJPEG picks for
    /// that output size (the largest with that size).
    static func options(_ width: Int, _ height: Int, eighths: Int) -> DecodeOptions {
        let size = scaled(width, height, eighths: eighths)
        return DecodeOptions(minimumSize: eighths == 8 ? nil : size)
    }

    @Test(arguments: corpus, eighths)
    func matchesTurboJPEG(_ file: CorpusFile, eighths: Int) throws {
        let data = try file.data
        let bytes = [UInt8](data)
        guard let header = TurboJPEGReference.header(bytes) else {
            #expect(throws: CodecError.self) { try JPEGCodec.decode(data, options: DecodeOptions()) }
            return
        }
        guard header.width * header.height <= DecodeOptions().pixelBudget else {
            #expect(
                throws: CodecError.pixelBudgetExceeded(width: header.width, height: header.height, budget: 50_000_000)
            ) {
                try JPEGCodec.decode(data, options: DecodeOptions())
            }
            return
        }
        let size = Self.scaled(header.width, header.height, eighths: eighths)
        let reference = try #require(TurboJPEGReference.decode(bytes, width: size.width, height: size.height))
        let result = Result { () throws(CodecError) in
            try JPEGCodec.decode(data, options: Self.options(header.width, header.height, eighths: eighths))
        }
        guard let expected = reference.pixels else {
            #expect(throws: CodecError.self, "TurboJPEG: \(reference.message ?? "")") { try result.get() }
            return
        }
        if case .failure(let error) = result, reference.isWarning, let message = reference.message {
            // TurboJPEG 2.1 reports a fatal error that follows a warning as TJERR_WARNING (its
            // `warning` flag is sticky) and hands back the rows decoded so far: its_40bb78…jpg,
            // "Unsupported marker type 0xf7" after a bad restart marker (djpeg fails it too).
            #expect(error == TurboJPEGReference.codecError(message), "\(error)")
            return
        }
        let image = try result.get()
        #expect(image.pixels.width == size.width && image.pixels.height == size.height)
        #expect(image.pixels.layout == expected.layout)
        let samePixels = image.pixels.bytes == expected.bytes
        #expect(samePixels, "pixels differ from tjDecompress2")
        if let message = reference.message, reference.isWarning {
            // TurboJPEG kept only the first warning's text; the row decoder keeps them all.
            #expect(image.warnings.contains(message), "\(image.warnings) lacks \(message)")
        } else {
            // A broken ICC profile was our marker walk's note before, libjpeg's warning now.
            #expect(image.warnings.allSatisfy { $0.contains("ICC") }, "\(image.warnings)")
        }
    }

    /// `readInfo` names the colour space and subsampling TurboJPEG's header call named.
    @Test(arguments: decodable)
    func readInfoMatchesTurboJPEG(_ file: CorpusFile) throws {
        let data = try file.data
        let header = try #require(TurboJPEGReference.header([UInt8](data)))
        let info = try JPEGCodec.readInfo(data)
        #expect(info.width == header.width && info.height == header.height)
        #expect(info.colorSpace == JPEGCodec.colorSpaceName(header.colorSpace))
    }

    /// The rows of `data` at full size, read `chunk` at a time (0: all in one call).
    static func rows(_ data: Data, chunk: Int, options: DecodeOptions = DecodeOptions()) throws -> [UInt8] {
        try JPEGCodec.withRows(data, options: options) { source in
            let rowBytes = source.width * source.layout.channels
            var out = [UInt8](repeating: 0, count: rowBytes * source.height)
            let step = chunk == 0 ? source.height : chunk
            var y = 0
            try out.withUnsafeMutableBufferPointer { buffer in
                while y < source.height {
                    let got = try source.readRows(
                        into: buffer.baseAddress! + y * rowBytes, stride: rowBytes, count: step)
                    #expect(got == min(step, source.height - y))
                    #expect(source.rowsRead == y + got)
                    guard got > 0 else { break }
                    y += got
                }
                let none = try source.readRows(into: buffer.baseAddress!, stride: rowBytes, count: 1)
                #expect(none == 0, "a read after the last row returns 0")
            }
            #expect(y == source.height)
            return out
        }
    }

    @Test(arguments: decodable)
    func chunkingDoesNotChangeTheRows(_ file: CorpusFile) throws {
        let data = try file.data
        guard (try? JPEGCodec.decode(data, options: DecodeOptions())) != nil else { return }
        let whole = try Self.rows(data, chunk: 0)
        #expect(try Self.rows(data, chunk: 1) == whole)
        #expect(try Self.rows(data, chunk: 7) == whole)
    }

    /// The row source reports what the whole-frame decode reports.
    @Test func rowSourceDescribesTheImage() throws {
        let data = try Corpus.data("photos/mei_issue242_progressive.jpg")
        try JPEGCodec.withRows(data, options: DecodeOptions(minimumSize: (100, 100))) { rows in
            #expect(rows.sourceWidth == 960 && rows.sourceHeight == 1280)
            #expect(rows.width == 120 && rows.height == 160)
            #expect(rows.layout == .rgb)
            // Progressive: libjpeg holds the whole image's coefficients, about 1.5 bytes x 2 per pixel (4:2:0).
            #expect(rows.workingMemory > 960 * 1280 * 3 && rows.workingMemory < 960 * 1280 * 5)
        }
        let baseline = try Corpus.data("photos/kodak_pixpro_fz201.jpg")
        let info = try JPEGCodec.readInfo(baseline)
        try JPEGCodec.withRows(baseline, options: DecodeOptions()) { rows in
            #expect(rows.workingMemory < info.width * 64 * 3, "baseline: a few MCU rows, not the frame")
        }
    }

    /// The damage verdict the TurboJPEG path reached from its one warning (and, when that was
    /// metadata, the end-of-image check) still holds now that every warning is seen.
    @Test(arguments: decodable)
    func damageVerdictIsUnchanged(_ file: CorpusFile) throws {
        let data = try file.data
        let bytes = [UInt8](data)
        let header = try #require(TurboJPEGReference.header(bytes))
        let reference = try #require(TurboJPEGReference.decode(bytes, width: header.width, height: header.height))
        guard reference.pixels != nil, let image = try? JPEGCodec.decode(data, options: DecodeOptions()) else { return }
        var wasDamaged = false
        if reference.isWarning, let message = reference.message {
            wasDamaged = !TurboJPEGReference.isMetadataMessage(message) || !JPEGCodec.hasEndOfImage(bytes)
        }
        if wasDamaged {
            #expect(image.isDamaged, "warnings \(image.warnings), TurboJPEG: \(reference.message ?? "-")")
        } else if image.isDamaged {
            // Seen only now: damage behind a harmless first warning, which TurboJPEG's one
            // message hid (jd_subtract-with-overflow.jpg: junk before DHT, then a progression
            // that contradicts itself).
            #expect(Self.damageSeenOnlyNow.contains(file.name), "\(image.damage)")
        }
    }

    /// Files whose damage the TurboJPEG decode missed: its first warning was harmless junk
    /// before a marker and the end marker present. The last two are in the full corpus only
    /// ("bad Huffman code" after the junk).
    static let damageSeenOnlyNow: Set<String> = [
        "jd_subtract-with-overflow.jpg", "ljt_github305_CVE-2018-19664.jpg", "ljt_mozilla891693_182.jpg",
    ]

    /// A progressive file with more than 500 scans (a known denial-of-service shape) is refused
    /// with TurboJPEG's words.
    @Test func moreThan500ScansAreRefused() throws {
        let bytes = [UInt8](
            try JPEGCodec.encode(Pixels.pattern(width: 16, height: 16, layout: .rgb), progressive: true))
        // The last SOS marker: inside entropy-coded data FF is followed by 00 or RSTn only.
        let lastScan = try #require(bytes.indices.dropLast().last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let eoi = bytes.count - 2
        #expect(bytes[eoi] == 0xFF && bytes[eoi + 1] == 0xD9)
        let scan = bytes[lastScan..<eoi]
        var many = Array(bytes[..<eoi])
        for _ in 0..<500 { many += scan }
        many += [0xFF, 0xD9]
        #expect {
            _ = try JPEGCodec.decode(Data(many), options: DecodeOptions())
        } throws: { error in
            guard case .corrupt(_, let message)? = error as? CodecError else { return false }
            return message == "Progressive JPEG image has more than 500 scans"
        }
        let reference = try #require(TurboJPEGReference.decode(many, width: 16, height: 16))
        #expect(reference.pixels == nil)
        // 500 is still fine (the encoder's own scans plus repeats stay under the limit).
        let fewer = Array(bytes[..<eoi]) + Array(repeating: scan, count: 400).flatMap { $0 } + [0xFF, 0xD9]
        #expect(throws: Never.self) { try JPEGCodec.decode(Data(fewer), options: DecodeOptions()) }
    }

    /// Strict mode turns the first warning into the error, also after the header.
    @Test func strictModeRefusesAWarning() throws {
        let junk = try DamageTests.junkBeforeDQT(cutAt: nil)
        #expect {
            _ = try JPEGCodec.decode(junk, options: DecodeOptions(strict: true))
        } throws: { error in
            guard case .corrupt(_, let message)? = error as? CodecError else { return false }
            return message.contains("extraneous bytes before marker 0xdb")
        }
        // A warning in the scan data, after the header: a file cut short.
        let photo = try Corpus.data("photos/kodak_pixpro_fz201.jpg")
        let cut = photo.prefix(photo.count * 2 / 3)
        #expect(throws: CodecError.self) { try JPEGCodec.decode(cut, options: DecodeOptions(strict: true)) }
        let lenient = try JPEGCodec.decode(cut, options: DecodeOptions())
        #expect(lenient.isDamaged && lenient.warnings.contains { $0.contains("Premature end of JPEG file") })
    }

    /// A lenient decode lists every distinct warning, not only the first.
    @Test func everyWarningIsKept() throws {
        let decoded = try JPEGCodec.decode(try DamageTests.junkBeforeDQT(cutAt: 0.6), options: DecodeOptions())
        #expect(decoded.warnings.first?.contains("extraneous bytes before marker 0xdb") == true, "\(decoded.warnings)")
        #expect(decoded.warnings.contains { $0.contains("Premature end of JPEG file") }, "\(decoded.warnings)")
        // The junk before a marker leaves the pixels as encoded (classified by libjpeg's message
        // code, JWRN_EXTRANEOUS_DATA): not damage; the cut scan is.
        #expect(!decoded.damage.contains { $0.contains("extraneous bytes") }, "\(decoded.damage)")
        #expect(decoded.damage.contains { $0.contains("Premature end of JPEG file") }, "\(decoded.damage)")
    }

    /// The DC-only early stop (`validateAllScans = false`) gives the full 1/8 decode's pixels.
    @Test(arguments: progressive)
    func dcOnlyEqualsTheFullEighth(_ file: CorpusFile) throws {
        let data = try file.data
        let info = try JPEGCodec.readInfo(data)
        var options = Self.options(info.width, info.height, eighths: 1)
        let full = Result { () throws(CodecError) in try JPEGCodec.decode(data, options: options) }
        options.validateAllScans = false
        let dcOnly = Result { () throws(CodecError) in try JPEGCodec.decode(data, options: options) }
        // A damaged file may differ: the skipped scans can rewrite what the early ones set
        // (an inconsistent progression), and a refused one may fail only past the stop.
        guard case .success(let expected) = full, !expected.isDamaged else { return }
        let image = try dcOnly.get()
        let samePixels = image.pixels.bytes == expected.pixels.bytes
        #expect(samePixels, "DC-only pixels differ from the full 1/8 decode")
        #expect(!image.isDamaged, "\(image.warnings)")
    }

    /// The photos stop early (their last scans refine AC only), and after the stop a file cut
    /// short still shows as damaged: its end marker is missing.
    @Test func dcOnlyStopsEarlyAndStillSeesATruncation() throws {
        let data = try Corpus.data("photos/mei_issue242_progressive.jpg")
        let info = try JPEGCodec.readInfo(data)
        var options = Self.options(info.width, info.height, eighths: 1)
        options.validateAllScans = false
        let stopped = try data.withUnsafeBytes { raw in
            let rows = try JPEGRowDecoder(raw, options: options)
            #expect(rows.isDCOnly)
            _ = try rows.readAll()
            return rows.stoppedEarly
        }
        #expect(stopped, "4:2:0: stops before the last luma refinement scan")

        let cut = data.prefix(data.count - 1000)
        #expect(try JPEGCodec.decode(cut, options: options).isDamaged)
        // Not at 1/8, or with validation on: every scan is read.
        options.validateAllScans = true
        #expect(try JPEGCodec.decode(cut, options: options).isDamaged)
        var quarter = Self.options(info.width, info.height, eighths: 2)
        quarter.validateAllScans = false
        let quarterIsDCOnly = try data.withUnsafeBytes { raw in try JPEGRowDecoder(raw, options: quarter).isDCOnly }
        #expect(!quarterIsDCOnly)
    }
}
