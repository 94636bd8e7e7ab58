import Foundation
import TestSupport
import Testing

@testable import ImageCodecs

/// CPNGShim's own reader for the common PNG (fast.c: ISA-L's inflate, its own unfiltering)
/// against libpng's, whole decodes compared (`PNGCodec.fastCheck`): every PNG the repository
/// carries, PNGs written here with every filter type, colour type and a range of widths, and
/// damaged or unusual ones (a filter type over 4, the stream cut, too long, its checksum wrong,
/// data after it, a smaller window than its distances need, chunks split anywhere). The same rows,
/// outcome and warnings whether the own reader reads the file to its end, hands it to libpng
/// halfway, or never takes it.
@Suite struct PNGFastReaderTests {
    static func compare(_ name: String, _ bytes: [UInt8]) -> Int32 {
        let libpng = PNGCodec.fastCheck(bytes, fast: false)
        let own = PNGCodec.fastCheck(bytes, fast: true)
        #expect(libpng.reader == 0)
        #expect(own == libpng, "\(name): own \(own) vs libpng \(libpng)")
        return own.reader
    }

    /// Every PNG under TestImages (PngSuite, its x* files, the fixtures).
    @Test func everyRepositoryPNGDecodesAsWithLibpng() throws {
        let root = Corpus.testImages
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        var readers: [Int32: Int] = [:]
        while let url = walker?.nextObject() as? URL {
            guard url.pathExtension.lowercased() == "png" else { continue }
            let bytes = [UInt8](try Data(contentsOf: url))
            readers[Self.compare(url.lastPathComponent, bytes), default: 0] += 1
        }
        #expect(readers.values.reduce(0, +) > 200, "TestImages holds the PNGs")
        #expect(readers[1, default: 0] > 40, "files the own reader read to the end: \(readers)")
    }

    // MARK: PNGs written here

    /// Bytes a pixel in the file for colour types 0, 2, 4 and 6.
    static let channels: [UInt8: Int] = [0: 1, 2: 3, 4: 2, 6: 4]

    /// `pixels` (height rows of width x channels bytes) with PNG filter `filters[y]` on row y
    /// (5 and over are written as they are, after the filter of type 0).
    static func filtered(_ pixels: [UInt8], width: Int, height: Int, bpp: Int, filters: [UInt8]) -> [UInt8] {
        let n = width * bpp
        var out: [UInt8] = []
        out.reserveCapacity((n + 1) * height)
        for y in 0..<height {
            let row = Array(pixels[(y * n)..<((y + 1) * n)])
            let prior = y == 0 ? [UInt8](repeating: 0, count: n) : Array(pixels[((y - 1) * n)..<(y * n)])
            out.append(filters[y])
            for i in 0..<n {
                let a = i >= bpp ? Int(row[i - bpp]) : 0
                let b = Int(prior[i])
                let c = i >= bpp ? Int(prior[i - bpp]) : 0
                let predicted: Int
                switch filters[y] {
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
                    predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: predicted = 0
                }
                out.append(UInt8(truncatingIfNeeded: Int(row[i]) - predicted))
            }
        }
        return out
    }

    /// A PNG of `zlib` (the image data's stream) split into IDAT chunks of `idatSize` bytes (and
    /// the `extraChunks` before IEND), with the ancillary `before` chunks after IHDR.
    static func png(
        width: Int, height: Int, colourType: UInt8, zlib: [UInt8], idatSize: Int = 1 << 20,
        before: [[UInt8]] = [], emptyIDATs: Bool = false
    ) -> [UInt8] {
        func be(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        var out = PNGChunks.signature
        out += PNGChunks.chunk(type: "IHDR", data: be(width) + be(height) + [8, colourType, 0, 0, 0])
        for chunk in before { out += chunk }
        var at = 0
        repeat {
            let end = min(zlib.count, at + max(idatSize, 1))
            out += PNGChunks.chunk(type: "IDAT", data: Array(zlib[at..<end]))
            if emptyIDATs { out += PNGChunks.chunk(type: "IDAT", data: []) }
            at = end
        } while at < zlib.count
        out += PNGChunks.chunk(type: "IEND", data: [])
        return out
    }

    static func noise(_ count: Int, smooth: Bool, using rng: inout SplitMix64) -> [UInt8] {
        var value = 128
        return (0..<count).map { _ in
            if smooth {
                value = max(0, min(255, value + Int.random(in: -3...3, using: &rng)))
                return UInt8(value)
            }
            return UInt8.random(in: 0...255, using: &rng)
        }
    }

    /// Every colour type the own reader takes, widths around its lanes, every filter type alone
    /// and mixed, smooth and noisy pixels, IDATs whole, small and split around empty ones: read
    /// to the end by the own reader, the same rows as libpng's.
    @Test func everyFilterAndColourTypeDecodesAsWithLibpng() {
        var rng = SplitMix64(seed: TestSeed.value(default: 0x504E_4746, for: "PNG fast filters"))
        var taken = 0, cases = 0
        for (colourType, bpp) in Self.channels.sorted(by: { $0.key < $1.key }) {
            for width in [1, 2, 5, 33, 300] {
                let height = 9
                for pattern in 0..<7 {
                    let filters: [UInt8] =
                        pattern < 5
                        ? [UInt8](repeating: UInt8(pattern), count: height)
                        : (0..<height).map { _ in UInt8.random(in: 0...4, using: &rng) }
                    let pixels = Self.noise(width * height * bpp, smooth: pattern != 6, using: &rng)
                    let zlib = Zlib.deflate(
                        Self.filtered(pixels, width: width, height: height, bpp: bpp, filters: filters), level: 6)
                    let idatSize = [1 << 20, 7, 2][pattern % 3]
                    let bytes = Self.png(
                        width: width, height: height, colourType: colourType, zlib: zlib, idatSize: idatSize,
                        emptyIDATs: pattern == 4)
                    let name = "type \(colourType), width \(width), filters \(filters), IDAT \(idatSize)"
                    if Self.compare(name, bytes) == 1 { taken += 1 }
                    cases += 1
                }
            }
        }
        // All but the files whose first IDAT holds a single byte (the zlib header split).
        #expect(taken > cases / 2, "taken \(taken) of \(cases)")
    }

    /// One small RGB image's parts, for the damaged variants.
    static func sample(using rng: inout SplitMix64) -> (pixels: [UInt8], raw: [UInt8], zlib: [UInt8]) {
        let pixels = Self.noise(40 * 30 * 3, smooth: true, using: &rng)
        let filters = (0..<30).map { _ in UInt8.random(in: 0...4, using: &rng) }
        let raw = Self.filtered(pixels, width: 40, height: 30, bpp: 3, filters: filters)
        return (pixels, raw, Zlib.deflate(raw, level: 6))
    }

    /// What the own reader does not take, or hands to libpng halfway, decodes as libpng decodes
    /// it: the same rows, error and warnings.
    @Test func unusualAndDamagedFilesDecodeAsWithLibpng() {
        var rng = SplitMix64(seed: TestSeed.value(default: 0x504E_4744, for: "PNG fast damage"))
        let (pixels, raw, zlib) = Self.sample(using: &rng)
        func rgb(_ stream: [UInt8], idatSize: Int = 1 << 20, before: [[UInt8]] = []) -> [UInt8] {
            Self.png(width: 40, height: 30, colourType: 2, zlib: stream, idatSize: idatSize, before: before)
        }
        var handedOver = 0
        func check(_ name: String, _ bytes: [UInt8], reader expected: Int32? = nil) {
            let reader = Self.compare(name, bytes)
            if reader == 2 { handedOver += 1 }
            if let expected { #expect(reader == expected, "\(name): reader \(reader)") }
        }
        check("whole", rgb(zlib), reader: 1)
        // A filter type over 4 in row 11, and in the last row.
        for row in [11, 29] {
            var bad = raw
            bad[row * 121] = 5
            check("filter type 5 in row \(row)", rgb(Zlib.deflate(bad, level: 6)), reader: 2)
        }
        // Too little image data, and too much (a row more, or bytes after the last row).
        check("a row short", rgb(Zlib.deflate(Array(raw.dropLast(121)), level: 6)), reader: 2)
        check("a row over", rgb(Zlib.deflate(raw + raw.suffix(121), level: 6)), reader: 2)
        check("three bytes over", rgb(Zlib.deflate(raw + [0, 1, 2], level: 6)), reader: 2)
        // The stream cut inside, its Adler-32 wrong, data after it in the IDAT, a second IDAT after it.
        check("stream cut", rgb(Array(zlib.prefix(zlib.count / 2))), reader: 2)
        check("stream without its checksum", rgb(Array(zlib.dropLast(4))), reader: 2)
        var adler = zlib
        adler[adler.count - 1] ^= 0x40
        check("wrong Adler-32", rgb(adler), reader: 2)
        check("junk after the stream", rgb(zlib + [0x12, 0x34]), reader: 2)
        var twoStreams = rgb(zlib)
        let iend = twoStreams.count - 12
        twoStreams.insert(contentsOf: PNGChunks.chunk(type: "IDAT", data: [0x78, 0x9C, 0x03, 0x00, 0, 0, 0, 1]), at: iend)
        check("an IDAT after the stream's end", twoStreams, reader: 2)
        // A damaged deflate block (bits changed past the header), several ways.
        for trial in 0..<12 {
            var damaged = zlib
            let at = Int.random(in: 2..<(zlib.count - 4), using: &rng)
            damaged[at] ^= UInt8.random(in: 1...255, using: &rng)
            check("byte \(at) of the stream changed (trial \(trial))", rgb(damaged))
        }
        // A window smaller than the distances used (zlib, and so libpng, refuse the distances).
        var small = Zlib.deflate(pixels.map { _ in 0 } + raw, level: 6)
        small[0] = 0x18  // CINFO 1: a 512-byte window
        small[1] = UInt8((31 - (Int(small[0]) * 256) % 31) % 31)
        check("a 512-byte window", Self.png(width: 40, height: 60, colourType: 2, zlib: small))
        // The zlib header split across IDATs: not taken; a preset dictionary: not taken.
        check("header split", rgb(zlib, idatSize: 1), reader: 0)
        var dictionary = zlib
        dictionary[1] |= 0x20
        dictionary[1] = dictionary[1] &- UInt8((Int(dictionary[0]) * 256 + Int(dictionary[1])) % 31)
        check("preset dictionary", rgb(dictionary), reader: 0)
        // A file cut inside its image data (the chunk walk's truncation, libpng's rows).
        let whole = rgb(zlib, idatSize: 100)
        for cut in [60, whole.count / 2, whole.count - 30, whole.count - 13] {
            check("file cut at \(cut)", Array(whole.prefix(cut)))
        }
        #expect(handedOver >= 12, "handed over: \(handedOver)")
    }

    /// Gamma libpng converts keeps the file from the own reader; gamma it leaves alone does not;
    /// tRNS (colour key to alpha) keeps it away too.
    @Test func gammaAndTransparencyDecideAsLibpngDoes() {
        var rng = SplitMix64(seed: TestSeed.value(default: 0x504E_4747, for: "PNG fast gamma"))
        let (_, _, zlib) = Self.sample(using: &rng)
        func gama(_ value: Int) -> [UInt8] {
            PNGChunks.chunk(type: "gAMA", data: [UInt8(value >> 24 & 255), UInt8(value >> 16 & 255), UInt8(value >> 8 & 255), UInt8(value & 255)])
        }
        let cases: [(String, [[UInt8]], Int32)] = [
            ("gAMA 1/2.2", [gama(45455)], 1), ("gAMA 0.47", [gama(47000)], 1), ("gAMA 1.0", [gama(100_000)], 0),
            ("gAMA 0.35", [gama(35000)], 0), ("sRGB", [PNGChunks.chunk(type: "sRGB", data: [0])], 1),
            ("tRNS", [PNGChunks.chunk(type: "tRNS", data: [0, 10, 0, 20, 0, 30])], 0),
        ]
        for (name, chunks, expected) in cases {
            let bytes = Self.png(width: 40, height: 30, colourType: 2, zlib: zlib, before: chunks)
            #expect(Self.compare(name, bytes) == expected, "\(name)")
        }
    }
}
