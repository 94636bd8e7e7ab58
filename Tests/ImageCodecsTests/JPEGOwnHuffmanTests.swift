internal import CJPEGShim
import Foundation
import ImageCodecs
import TestSupport
import Testing

/// The shim's own Huffman decoder (CJPEGShim's huffman.c, the scan's decode_mcu) against
/// libjpeg's, whole decodes compared: every JPEG the repository carries (photos, conformance
/// files, broken ones) and damaged copies of the baseline ones (cut short, bytes changed, restart
/// markers renumbered), at scales where the AC coefficients are stored and where they are not
/// (1/8). The same rows, the same outcome and error text, the same warnings, whether the own
/// decoder takes a file to its end or hands it to libjpeg halfway. With the own decoding off
/// (`PUSHATTACH_JPEG_DECODER=libjpeg`, `make test`'s second JPEG pass) no decode may reach it.
@Suite struct JPEGOwnHuffmanTests {
    /// `pa_jpeg_own_huffman` after a whole file the own decoder takes: 1, or 0 with it off.
    static let wholeState: Int32 = JPEGCodec.ownDecoding ? 1 : 0

    static func decode(
        _ bytes: [UInt8], eighths: Int, own: Bool, strict: Bool = false, gray: Bool = false
    ) -> JPEGCodec.HuffmanCheckOutcome {
        JPEGCodec.huffmanCheck(bytes, eighths: eighths, ownHuffman: own, strict: strict, gray: gray)
    }

    /// Every JPEG under TestImages, as (name, bytes).
    static let files: [(String, [UInt8])] = {
        let root = Corpus.testImages
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        var found: [(String, [UInt8])] = []
        while let url = walker?.nextObject() as? URL {
            guard ["jpg", "jpeg"].contains(url.pathExtension.lowercased()),
                let data = try? Data(contentsOf: url)
            else { continue }
            found.append((String(url.path.dropFirst(root.path.count + 1)), [UInt8](data)))
        }
        return found.sorted { $0.0 < $1.0 }
    }()

    /// Scales: 1/8 (no AC stored), 3/8 and, for images up to 4 megapixels, 8/8 (debug builds
    /// run the C unoptimised).
    static func scales(_ bytes: [UInt8]) -> [Int] {
        let large = bytes.count > 400_000
        return large ? [1, 3] : [1, 3, 8]
    }

    /// Decodes `bytes` both ways at each scale and compares; the own decoder's state at the end
    /// of each (`pa_jpeg_own_huffman`), counted.
    @discardableResult
    static func compare(_ name: String, _ bytes: [UInt8]) -> [Int32: Int] {
        var states: [Int32: Int] = [:]
        for eighths in scales(bytes) {
            let libjpeg = decode(bytes, eighths: eighths, own: false)
            let own = decode(bytes, eighths: eighths, own: true)
            #expect(libjpeg.decoder == 0)
            #expect(own == libjpeg, "\(name) at \(eighths)/8: own \(own) vs libjpeg \(libjpeg)")
            states[own.decoder, default: 0] += 1
        }
        return states
    }

    @Test func everyRepositoryJPEGDecodesAsWithLibjpeg() {
        #expect(Self.files.count > 100, "TestImages holds the JPEGs")
        var states: [Int32: Int] = [:]
        for (name, bytes) in Self.files { states.merge(Self.compare(name, bytes), uniquingKeysWith: +) }
        // Most files are whole baseline ones, decoded by the own decoder to their end.
        if JPEGCodec.ownDecoding {
            #expect(states[1, default: 0] > 150, "own decoder to the end: \(states)")
        } else {
            #expect(states.keys.sorted() == [0], "the own decoder is off, yet it decoded: \(states)")
        }
    }

    /// Whole files it takes: decoded to the end without libjpeg's decoder, restart markers and
    /// fill bytes before EOI included.
    @Test(arguments: ["photo-1600x1200.jpg", "codecs/dc/restart-two-rows-444.jpg", "codecs/dc/restart-every-mcu-420.jpg"])
    func wholeFilesAreDecodedToTheEndByTheOwnDecoder(_ file: String) throws {
        let bytes = [UInt8](try Data(contentsOf: Corpus.testImages.appendingPathComponent(file)))
        #expect(Self.compare(file, bytes) == [Self.wholeState: Self.scales(bytes).count])
        let scan = try #require(Self.scanData(bytes))
        var filled = bytes
        filled.insert(contentsOf: [0xFF, 0xFF, 0xFF], at: scan.upperBound)
        #expect(Self.compare("\(file) with fill bytes before EOI", filled) == [Self.wholeState: Self.scales(bytes).count])
    }

    /// Where a baseline file's scan data starts and ends (the SOS payload's end, the EOI), or
    /// nil for other files.
    static func scanData(_ bytes: [UInt8]) -> Range<Int>? {
        var i = 2
        var baseline = false
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if marker == 0xC0 || marker == 0xC1 { baseline = true }
            if marker == 0xDA {
                guard baseline else { return nil }
                let start = i + 2 + length
                var end = bytes.count - 2
                while end > start, !(bytes[end] == 0xFF && bytes[end + 1] == 0xD9) { end -= 1 }
                return end > start + 16 ? start..<end : nil
            }
            i += 2 + length
        }
        return nil
    }

    /// Damaged copies of the baseline files: cut at several points, a byte of the scan data
    /// changed (into 0xFF, 0x00, a marker, anything), a restart marker renumbered or dropped.
    /// Only with the own decoding on: off, both sides are libjpeg's.
    @Test(.enabled(if: JPEGCodec.ownDecoding)) func damagedBaselineFilesDecodeAsWithLibjpeg() {
        var rng = SplitMix64(seed: TestSeed.value(default: 0x4855_4646, for: "own Huffman damage"))
        var variants = 0
        var handedOver = 0
        var warned = 0
        var strictOrGray = 0
        func compare(_ name: String, _ bytes: [UInt8]) {
            handedOver += Self.compare(name, bytes)[2, default: 0]
            if Self.decode(bytes, eighths: 1, own: false).warningCount > 0 { warned += 1 }
            // Strict (a warning from the replaying decoder is the error, through the shadow's
            // forwarding), and grey from a colour file (no chroma coefficient needed).
            for (strict, gray) in [(true, false), (false, true)] {
                let libjpeg = Self.decode(bytes, eighths: 3, own: false, strict: strict, gray: gray)
                let own = Self.decode(bytes, eighths: 3, own: true, strict: strict, gray: gray)
                #expect(own == libjpeg, "\(name) at 3/8, strict \(strict), grey \(gray): own \(own) vs libjpeg \(libjpeg)")
                if own.decoder == 2 { strictOrGray += 1 }
            }
        }
        for (name, bytes) in Self.files {
            guard bytes.count < 400_000, let scan = Self.scanData(bytes) else { continue }
            for cut in [scan.lowerBound + 1, scan.lowerBound + scan.count / 3, scan.upperBound - 1, scan.upperBound + 1] {
                compare("\(name) cut at \(cut)", Array(bytes[..<min(cut, bytes.count)]))
                variants += 1
            }
            for _ in 0..<6 {
                var changed = bytes
                let at = Int.random(in: scan, using: &rng)
                changed[at] = [0xFF, 0x00, 0xD0, UInt8.random(in: 0...255, using: &rng)].randomElement(using: &rng)!
                if changed[at] == 0xFF, at + 1 < scan.upperBound { changed[at + 1] = 0xD0 &+ UInt8.random(in: 0...9, using: &rng) }
                compare("\(name) byte \(at) changed", changed)
                variants += 1
            }
            let restarts = scan.filter { bytes[$0] == 0xFF && $0 + 1 < scan.upperBound && (0xD0...0xD7).contains(bytes[$0 + 1]) }
            if let marker = restarts.randomElement(using: &rng) {
                var renumbered = bytes
                renumbered[marker + 1] = 0xD0 + (renumbered[marker + 1] - 0xD0 + 3) % 8
                compare("\(name) restart at \(marker) renumbered", renumbered)
                var dropped = bytes
                dropped.removeSubrange(marker..<(marker + 2))
                compare("\(name) restart at \(marker) dropped", dropped)
                var junk = bytes
                junk.insert(contentsOf: [0x12, 0x34], at: marker)
                compare("\(name) junk before the restart at \(marker)", junk)
                variants += 3
            }
            var trailing = bytes
            trailing.insert(contentsOf: [0x55, 0xFF, 0xFF], at: scan.upperBound)
            compare("\(name) junk before EOI", trailing)
            variants += 1
        }
        #expect(variants > 200, "baseline files to damage")
        #expect(handedOver > 100, "damage the own decoder handed to libjpeg")
        #expect(warned > 100, "damage libjpeg warns about")
        #expect(strictOrGray > 100, "strict and grey decodes handed to libjpeg")
    }

    /// A code read by the canonical path (longer than the 11-bit lookup) whose index into the
    /// table's symbols is out of range, as a damaged table in memory would give, is refused (the
    /// file then goes to libjpeg's decoder), not masked into some other symbol.
    @Test func anOutOfRangeSymbolIndexIsRefusedNotMasked() {
        // One 1-bit code (0) and two 12-bit ones (0b1000_0000_0000, 0b1000_0000_0001).
        var bits = [UInt8](repeating: 0, count: 17)
        bits[1] = 1
        bits[12] = 2
        let values: [UInt8] = [5, 7, 9]
        func symbol(_ code: Int32, _ length: Int32, skew: Int32 = 0) -> Int32 {
            pa_huff_canonical_symbol_for_test(bits, values, code, length, skew)
        }
        #expect(symbol(0, 1) == 5)
        #expect(symbol(2048, 12) == 7)
        #expect(symbol(2049, 12) == 9)
        #expect(symbol(2050, 12) == -1, "past the largest 12-bit code")
        // Index 3 of 3 symbols, and index -1 (255 once masked): neither is a symbol.
        #expect(symbol(2049, 12, skew: 1) == -1)
        #expect(symbol(2048, 12, skew: -2) == -1)
        #expect(symbol(2048, 12, skew: 1) == 9, "a skew that stays in range reads the next symbol")
    }
}
