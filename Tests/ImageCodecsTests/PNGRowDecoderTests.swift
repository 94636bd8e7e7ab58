import Foundation
import TestSupport
import Testing

@testable import ImageCodecs

/// The libpng row decoder (`PNGRowDecoder`) against the simplified-API decode it replaced
/// (`SimplifiedPNGReference`): the same pixels, warnings and failures over every PNG of the
/// corpus, in any row chunking, within bounded memory.
///
/// Tolerance: none. The decoder makes libpng's simplified-API calls for 8-bit output
/// (`png_set_expand`, `png_set_gray_to_rgb`, `png_set_alpha_mode_fixed(PNG_ALPHA_PNG,
/// PNG_DEFAULT_sRGB)` before and after `png_set_scale_16`), so gamma files (g03…g25) and 16-bit
/// files come out byte for byte equal, and are tested so.
@Suite struct PNGRowDecoderTests {
    /// Every PNG of the corpus: PngSuite (valid and `x*`), its extras, the broken set, the small set.
    static let corpus: [CorpusFile] = ["pngsuite", "broken", "small"].flatMap {
        CorpusFile.all(in: $0, extensions: ["png"])
    }
    static let decodable = corpus.filter {
        if case .decoded = SimplifiedPNGReference.decode((try? $0.data) ?? Data()) { true } else { false }
    }

    /// The interlaced 16-bit files of PngSuite and the non-interlaced file of the same image
    /// (bgai4a16 is basi4a16 with a bKGD chunk, which decoding ignores).
    static let sixteenBitAdam7Twins = [
        "basi0g16.png": "basn0g16.png", "basi2c16.png": "basn2c16.png", "basi4a16.png": "basn4a16.png",
        "basi6a16.png": "basn6a16.png", "bgai4a16.png": "basn4a16.png",
    ]

    @Test func corpusIsPresent() {
        #expect(Self.corpus.count > 200)
        #expect(Self.decodable.count > 160)
        #expect(Self.decodable.contains { $0.name == "basi6a16.png" })
    }

    @Test(arguments: corpus)
    func matchesTheSimplifiedAPI(_ file: CorpusFile) throws {
        let data = try file.data
        let result = Result { () throws(CodecError) -> DecodedImage in
            try PNGCodec.decode(data, options: DecodeOptions())
        }
        var reference = SimplifiedPNGReference.decode(data)
        if let twin = Self.sixteenBitAdam7Twins[file.name] {
            // libpng 1.6.39's simplified API assembles Adam7 passes of 16-bit files wrongly (rows
            // shifted and doubled); the row decoder must give the non-interlaced twin's pixels.
            if case .decoded(let wrong, _) = reference,
                case .decoded(let right, _) = SimplifiedPNGReference.decode(try Corpus.data("pngsuite/" + twin))
            {
                #expect(wrong != right)
                reference = .decoded(right, warning: nil)
            } else {
                Issue.record("the simplified API did not decode \(file.name) or \(twin)")
            }
        }
        switch (reference, result) {
        case (.decoded(let expected, let warning), .success(let image)):
            #expect(image.pixels == expected)
            // The simplified API kept its first warning, cut to 63 bytes; the row decoder keeps all.
            if let warning {
                #expect(image.warnings.first?.hasPrefix(warning) == true, "\(image.warnings) vs \(warning)")
            }
        case (.failed(let expected), .failure(let error)):
            if case .corrupt(let oldCodec, let oldMessage) = expected, case .corrupt(let codec, let message) = error {
                #expect(codec == oldCodec)
                #expect(message.hasPrefix(oldMessage), "\(message) vs \(oldMessage)")
            } else {
                #expect(error == expected)
            }
        case (.decoded, .failure(let error)): Issue.record("the row decoder fails where libpng did not: \(error)")
        case (.failed(let expected), .success(let image)):
            // A file cut in its image data: the simplified API failed at the cut; the row
            // decoder keeps the rows before it and reports the cut as damage.
            guard image.isDamaged, "\(expected)".contains(PNGRowDecoder.ranOutMessage) else {
                Issue.record("the row decoder accepts what failed: \(expected)")
                return
            }
        }
    }

    /// Rows read 1, 5 or all at a time, into rows wider than needed, are the full decode's.
    @Test(arguments: decodable)
    func anyChunkingGivesTheSameRows(_ file: CorpusFile) throws {
        let data = try file.data
        let whole = try PNGCodec.decode(data, options: DecodeOptions())
        for chunk in [1, 5, Int.max] {
            let rows = try Self.readRows(data, chunk: chunk, padding: 3)
            #expect(rows.pixels == whole.pixels, "chunks of \(chunk)")
            #expect(rows.warnings == whole.warnings)
        }
    }

    /// Every Adam7 file of PngSuite against its non-interlaced twin (basi… / basn…, s01i… / s01n…).
    static let interlacedWithTwin = corpus.filter {
        $0.url.path.contains("/pngsuite/") && $0.name.dropFirst(3).hasPrefix("i")
            && FileManager.default.fileExists(atPath: twin(of: $0).path)
    }

    static func twin(of file: CorpusFile) -> URL {
        file.url.deletingLastPathComponent().appendingPathComponent(
            String(file.name.prefix(3)) + "n" + file.name.dropFirst(4))
    }

    @Test func interlacedTwinsArePresent() { #expect(Self.interlacedWithTwin.count >= 30) }

    @Test(arguments: interlacedWithTwin)
    func interlacedEqualsNonInterlaced(_ file: CorpusFile) throws {
        let twin = Self.twin(of: file)
        let interlaced = try Self.readRows(try file.data, chunk: 1)
        let plain = try Self.readRows(try Data(contentsOf: twin), chunk: 1)
        #expect(interlaced.pixels == plain.pixels)
        #expect(interlaced.interlaced && !plain.interlaced)
    }

    @Test func interlacedFileHoldsItsFrame() throws {
        try ImageCodecs.withRows(try Corpus.data("pngsuite/basi6a08.png"), format: .png) { rows in
            #expect(rows.workingMemory >= rows.width * rows.height * rows.layout.channels)
        }
    }

    /// Cut, IDAT-damaged (CRC fixed up, so libpng meets the damage mid-stream) and CRC-damaged
    /// files of PngSuite fail with a `CodecError`, row by row and whole; none crashes. A cut
    /// inside or after the image data decodes leniently with damage, and fails strict.
    @Test(arguments: corpus.filter { $0.url.path.contains("/pngsuite/") && $0.name.hasPrefix("bas") })
    func damagedFilesFailCleanly(_ file: CorpusFile) throws {
        let bytes = [UInt8](try file.data)
        for cut in [8, 33] {
            #expect(throws: CodecError.self) { try PNGCodec.decode(Data(bytes[..<cut]), options: DecodeOptions()) }
        }
        for cut in [bytes.count / 2, bytes.count - 13, bytes.count - 1] {
            #expect(throws: CodecError.self) {
                try PNGCodec.decode(Data(bytes[..<cut]), options: DecodeOptions(strict: true))
            }
            do {
                let image = try PNGCodec.decode(Data(bytes[..<cut]), options: DecodeOptions())
                #expect(image.isDamaged, "cut at \(cut) of \(bytes.count): decoded without damage")
            } catch {
                #expect(error.isCorrupt, "cut at \(cut): \(error)")
            }
        }
        var badCRC = bytes
        badCRC[bytes.count - 20] ^= 0x40  // in the last IDAT: its CRC does not match
        #expect(throws: CodecError.self) { try PNGCodec.decode(Data(badCRC), options: DecodeOptions()) }

        var random = SplitMix64(seed: TestSeed.value(default: 11, for: "damagedFilesFailCleanly"))
        var failures = 0
        for _ in 0..<8 {
            let damaged = Self.damagingIDAT(bytes, using: &random)
            do {
                let rows = try Self.readRows(Data(damaged), chunk: 1)
                #expect(rows.pixels.height > 0)
            } catch let error as CodecError {
                #expect(error.isCorrupt, "\(error)")
                failures += 1
            }
        }
        #expect(failures > 0)
    }

    @Test func aFailedDecoderKeepsFailing() throws {
        let bytes = [UInt8](try Corpus.data("pngsuite/basn2c08.png"))
        var random = SplitMix64(seed: 5)
        var damaged: [UInt8] = []
        var failed = false
        for _ in 0..<32 where !failed {
            damaged = Self.damagingIDAT(bytes, using: &random)
            failed = (try? PNGCodec.decode(Data(damaged), options: DecodeOptions())) == nil
        }
        try #require(failed)
        try ImageCodecs.withRows(Data(damaged), format: .png) { rows in
            var row = [UInt8](repeating: 0, count: rows.width * rows.layout.channels)
            let first = #expect(throws: CodecError.self) {
                while try row.withUnsafeMutableBufferPointer({
                    try rows.readRows(into: $0.baseAddress!, stride: $0.count, count: 1)
                }) == 1 {}
            }
            let again = #expect(throws: CodecError.self) {
                _ = try row.withUnsafeMutableBufferPointer {
                    try rows.readRows(into: $0.baseAddress!, stride: $0.count, count: 1)
                }
            }
            #expect(first == again)
        }
    }

    @Test func pixelBudgetRefusesBeforeAnyRow() throws {
        let data = try Corpus.data("pngsuite/basn6a08.png")  // 32x32
        var opened = false
        #expect(throws: CodecError.pixelBudgetExceeded(width: 32, height: 32, budget: 1000)) {
            try ImageCodecs.withRows(data, format: .png, options: DecodeOptions(pixelBudget: 1000)) { _ in
                opened = true
            }
        }
        #expect(!opened)
        // 65536-uint32-limit.png promises 65536 x 65536: refused from IHDR, nothing allocated.
        #expect(throws: CodecError.self) {
            try PNGCodec.decode(try Corpus.data("pngsuite/extra/65536-uint32-limit.png"), options: DecodeOptions())
        }
    }

    /// A 2000x2000 RGBA image decodes row by row holding a few rows and fixed state (libpng's
    /// and zlib's, or the own reader's: ISA-L's state, about 100 KB, and a 128 KB inflate
    /// buffer), not its 16 MB frame.
    @Test func largeImageStreamsInBoundedMemory() throws {
        let side = 2000
        var bytes = [UInt8](repeating: 0, count: side * side * 4)
        bytes.withUnsafeMutableBufferPointer { p in
            for y in 0..<side {
                let row = p.baseAddress! + y * side * 4
                for x in 0..<side {
                    row[x * 4] = UInt8(truncatingIfNeeded: x)
                    row[x * 4 + 1] = UInt8(truncatingIfNeeded: y)
                    row[x * 4 + 3] = 255
                }
            }
        }
        let png = try PNGCodec.encode(
            PixelBuffer(width: side, height: side, layout: .rgba, bytes: bytes), compression: .fast)
        try ImageCodecs.withRows(png, format: .png) { rows in
            #expect(rows.width == side && rows.height == side && rows.layout == .rgba)
            #expect(rows.workingMemory < 8 * side * 4 + 400_000, "\(rows.workingMemory) bytes")
            var row = [UInt8](repeating: 0, count: side * 4)
            for y in 0..<side {
                let n = try row.withUnsafeMutableBufferPointer {
                    try rows.readRows(into: $0.baseAddress!, stride: $0.count, count: 1)
                }
                #expect(n == 1)
                if y % 397 == 0 { #expect(row[...] == bytes[(y * side * 4)..<((y + 1) * side * 4)]) }
            }
            #expect(rows.rowsRead == side)
        }
    }

    @Test func readInfoAgreesWithDecode() throws {
        for file in Self.decodable.prefix(60) {
            let data = try file.data
            let info = try PNGCodec.readInfo(data)
            let image = try PNGCodec.decode(data, options: DecodeOptions())
            #expect(info.width == image.pixels.width && info.height == image.pixels.height)
            #expect(info.hasAlpha == image.pixels.layout.hasAlpha)
            #expect(info.iccProfile == image.iccProfile)
        }
    }

    // MARK: - Helpers

    /// Reads every row through `ImageCodecs.withRows`, `chunk` at a time, rows `padding` bytes wider.
    static func readRows(_ data: Data, chunk: Int, padding: Int = 0) throws -> (
        pixels: PixelBuffer, warnings: [String], interlaced: Bool
    ) {
        try ImageCodecs.withRows(data, format: .png) { rows in
            let rowBytes = rows.width * rows.layout.channels, stride = rowBytes + padding
            var buffer = [UInt8](repeating: 0, count: stride * rows.height)
            var done = 0
            while done < rows.height {
                let n = try buffer.withUnsafeMutableBufferPointer {
                    try rows.readRows(
                        into: $0.baseAddress! + done * stride, stride: stride, count: min(chunk, rows.height - done))
                }
                #expect(n > 0)
                done += n
            }
            let tail = try buffer.withUnsafeMutableBufferPointer {
                try rows.readRows(into: $0.baseAddress!, stride: stride, count: 1)
            }
            #expect(tail == 0)
            var packed: [UInt8] = []
            packed.reserveCapacity(rowBytes * rows.height)
            for y in 0..<rows.height { packed += buffer[(y * stride)..<(y * stride + rowBytes)] }
            let interlaced = (rows as? PNGRowDecoder)?.isInterlaced ?? false
            return (
                PixelBuffer(width: rows.width, height: rows.height, layout: rows.layout, bytes: packed), rows.warnings,
                interlaced
            )
        }
    }

    /// `bytes` with a few bytes of the first IDAT's data changed and that chunk's CRC recomputed.
    static func damagingIDAT(_ bytes: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        var out = bytes
        var offset = 8
        while offset + 8 <= out.count {
            let length =
                Int(out[offset]) << 24 | Int(out[offset + 1]) << 16 | Int(out[offset + 2]) << 8 | Int(out[offset + 3])
            if out[(offset + 4)..<(offset + 8)].elementsEqual("IDAT".utf8), length > 4 {
                for _ in 0..<3 {
                    out[offset + 8 + 2 + Int.random(in: 0..<(length - 2), using: &random)] ^= UInt8.random(
                        in: 1...255, using: &random)
                }
                let crc = CRC32.checksum(out[(offset + 4)..<(offset + 8 + length)])
                let at = offset + 8 + length
                for (i, shift) in [24, 16, 8, 0].enumerated() { out[at + i] = UInt8((crc >> shift) & 0xFF) }
                return out
            }
            offset += length + 12
        }
        return out
    }
}
