internal import CTurboJPEG
import Foundation
import TestSupport
import Testing

@testable import ImageCodecs

/// The planar JPEG decode (`JPEGCodec.withPlanes`) and encode (`JPEGCodec.encode(_:quality:iccProfile:)`):
/// the components libjpeg stores, no colour conversion either way.
@Suite struct JPEGPlanesTests {
    /// TurboJPEG's own planar decode at `eighths`/8 (full size by default): Y, Cb, Cr as stored,
    /// each at its own scale.
    static func turboPlanes(_ data: Data, eighths: Int32 = 8) throws -> [PixelBuffer] {
        let handle = try #require(tjInitDecompress())
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let bytes = [UInt8](data)
        #expect(tjDecompressHeader3(handle, bytes, UInt(bytes.count), &width, &height, &subsampling, &colorspace) == 0)
        // TJSCALED(): ceil(dimension * num / denom).
        (width, height) = ((width * eighths + 7) / 8, (height * eighths + 7) / 8)
        func plane(_ c: Int32) -> PixelBuffer {
            PixelBuffer(
                width: Int(tjPlaneWidth(c, width, subsampling)), height: Int(tjPlaneHeight(c, height, subsampling)),
                layout: .gray)
        }
        var (y, u, v) = (plane(0), plane(1), plane(2))
        var strides = [y, u, v].map { Int32($0.stride) }
        let status = y.withUnsafeMutableBytes { yb in
            u.withUnsafeMutableBytes { ub in
                v.withUnsafeMutableBytes { vb in
                    var pointers: [UnsafeMutablePointer<UInt8>?] = [yb.baseAddress, ub.baseAddress, vb.baseAddress]
                    return tjDecompressToYUVPlanes(
                        handle, bytes, UInt(bytes.count), &pointers, width, &strides, height, Int32(TJFLAG_ACCURATEDCT))
                }
            }
        }
        #expect(status == 0)
        return [y, u, v]
    }

    /// A 4:2:0 file at full size needs no reduction: the planes are libjpeg's, byte for byte.
    @Test func fullSize420PlanesAreTheStoredComponents() throws {
        let data = try Corpus.data("photos/mei_issue242_progressive.jpg")
        let expected = try Self.turboPlanes(data)
        let got = try #require(
            try JPEGCodec.withPlanes(data, options: DecodeOptions()) { luma, chroma in
                #expect(luma.layout == .gray)
                let y = try luma.readAll()
                let (cb, cr) = chroma()
                return [y, cb, cr]
            })
        for (c, (g, e)) in zip(got, expected).enumerated() {
            #expect(g.width == e.width && g.height == e.height, "component \(c) size")
            #expect(g.bytes == e.bytes, "component \(c) bytes")
        }
    }

    /// At N/8 for N = 3, 5, 6, 7 libjpeg gives 4:2:0 chroma a 2Nx2N IDCT (jdmaster.c), which the
    /// shim replaces by the luma's NxN one (CJPEGShim, `pa_jpeg_idct_chroma_at_own_scale`): every
    /// plane is then TurboJPEG's own scaled planar decode, byte for byte. Baseline and
    /// progressive, restart markers, odd sizes (a partial last block and MCU).
    @Test(arguments: [
        "photo-1600x1200.jpg", "progressive-640x480.jpg", "codecs/dc/restart-every-mcu-420.jpg",
        "codecs/dc/quality-100-420.jpg",
    ])
    func scaledChromaIsDecodedAtItsOwnScale(_ file: String) throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent(file))
        let header = try JPEGCodec.readInfo(data)
        var differingInAll = 0
        for eighths in [3, 5, 6, 7] {
            // TJSCALED(): ceil(dimension * num / denom); TurboJPEG's planes are padded to whole
            // chroma samples, the decode's are not.
            let (width, height) = ((header.width * eighths + 7) / 8, (header.height * eighths + 7) / 8)
            let sizes = [(width, height), ((width + 1) / 2, (height + 1) / 2), ((width + 1) / 2, (height + 1) / 2)]
            let expected = try Self.turboPlanes(data, eighths: Int32(eighths))
            let got = try #require(
                try JPEGCodec.withPlanes(data, options: DecodeOptions(minimumSize: (width, height))) { luma, chroma in
                    let y = try luma.readAll()
                    let (cb, cr) = chroma()
                    return [y, cb, cr]
                })
            for (c, (g, e)) in zip(got, expected).enumerated() {
                let place = "\(file) at \(eighths)/8, component \(c)"
                #expect(g.width == sizes[c].0 && g.height == sizes[c].1, "\(place): \(g.width)x\(g.height)")
                var differing = 0
                for y in 0..<min(g.height, e.height) {
                    for x in 0..<min(g.width, e.width) where g.bytes[y * g.stride + x] != e.bytes[y * e.stride + x] {
                        differing += 1
                    }
                }
                // With the own decoding off the chroma is libjpeg's 2Nx2N IDCT reduced by the planes.
                if JPEGCodec.ownDecoding { #expect(differing == 0, "\(place): \(differing) samples differ from TurboJPEG's") }
                differingInAll += differing
            }
        }
        if !JPEGCodec.ownDecoding { #expect(differingInAll > 0, "\(file): the own-scale chroma is off, yet its planes came") }
    }

    /// A luma sampled below its chroma (1x1 luma, 2x2 chroma) gets libjpeg's doubled IDCT itself
    /// at the odd scales, and keeps it: its plane is libjpeg's greyscale decode at that scale, byte
    /// for byte (a first version gave it the chroma's NxN IDCT in 2x2 squares; found by review).
    @Test func aLumaSampledBelowItsChromaKeepsLibjpegsIDCT() throws {
        let file = "codecs/dc/sampled-luma-1x1-chroma-2x2.jpg"
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent(file))
        let bytes = [UInt8](data)
        let handle = try #require(tjInitDecompress())
        defer { tjDestroy(handle) }
        let header = try JPEGCodec.readInfo(data)
        for eighths in [3, 5, 6, 7] {
            let (width, height) = ((header.width * eighths + 7) / 8, (header.height * eighths + 7) / 8)
            var expected = [UInt8](repeating: 0, count: width * height)
            let status = tjDecompress2(
                handle, bytes, UInt(bytes.count), &expected, Int32(width), Int32(width), Int32(height),
                Int32(TJPF_GRAY.rawValue), Int32(TJFLAG_ACCURATEDCT))
            #expect(status == 0, "TurboJPEG's greyscale decode at \(eighths)/8")
            let luma = try #require(
                try JPEGCodec.withPlanes(data, options: DecodeOptions(minimumSize: (width, height))) { luma, _ in
                    try luma.readAll()
                })
            #expect(luma.width == width && luma.height == height, "\(eighths)/8: \(luma.width)x\(luma.height)")
            var differing = 0
            for y in 0..<min(height, luma.height) {
                for x in 0..<min(width, luma.width) where luma.bytes[y * luma.stride + x] != expected[y * width + x] {
                    differing += 1
                }
            }
            #expect(differing == 0, "\(eighths)/8: \(differing) luma samples differ from libjpeg's")
        }
    }

    /// At 5/8 libjpeg's layout holds 4:2:0 chroma at the luma size (jdmaster.c); the planes
    /// come out at half of it, and the luma equals TurboJPEG's RGB decode's luma closely.
    @Test(arguments: ["photos/mei_issue242_progressive.jpg", "photos/kodak_pixpro_fz201.jpg", "orientation/Landscape_6.jpg"])
    func scaledPlanesAreFourTwoZero(_ file: String) throws {
        let data = try Corpus.data(file)
        let options = DecodeOptions(minimumSize: (450, 450))
        let rgb = try ImageCodecs.decode(data, format: .jpeg, options: options).pixels
        let planes = try #require(
            try JPEGCodec.withPlanes(data, options: options) { luma, chroma in
                let y = try luma.readAll()
                let (cb, cr) = chroma()
                return YCbCrPlanes(y: y, cb: cb, cr: cr)
            })
        #expect(planes.width == rgb.width && planes.height == rgb.height)
        // Luma from the RGB decode (BT.601, as libjpeg converts): within a level or two of the
        // stored luma, the RGB rounding and clamping aside.
        var total = 0
        rgb.withUnsafeBytes { p in
            for i in 0..<(rgb.width * rgb.height) {
                let (r, g, b) = (Double(p[3 * i]), Double(p[3 * i + 1]), Double(p[3 * i + 2]))
                let y = (0.299 * r + 0.587 * g + 0.114 * b).rounded()
                total += abs(Int(y) - Int(planes.y.bytes[i]))
            }
        }
        #expect(Double(total) / Double(rgb.width * rgb.height) < 1.0, "\(file): mean luma difference")
    }

    @Test(arguments: ["photos/cmyk_canon_eos300d_wikimedia.jpg", "jpeg/jpeg-decoder/blank_800x280.jpg"])
    func notThreeComponentYCbCrIsRefused(_ file: String) throws {
        let data = try Corpus.data(file)
        let result = try JPEGCodec.withPlanes(data, options: DecodeOptions()) { _, _ in 1 }
        #expect(result == nil)
    }

    /// The chroma factors come from the sampling factors and IDCT sizes, and the sizes must
    /// agree: 4:2:0 at 5/8 (chroma scaled up by IDCT) and at 1/1, 4:2:2, 4:4:0, 4:4:4; not 4:1:1,
    /// and not 3x1 luma with 2x1 chroma, whose 3-pixel-wide chroma is 2 wide, half of 3 rounded up,
    /// but whose ratio is 3:2 (libjpeg's RGB decode refuses it, so the planes must too).
    @Test func chromaFactorsComeFromTheSampling() {
        typealias Shape = JPEGPlaneCollector.Shape
        func factors(_ luma: (Int, Int, Int, Int, Int), _ chroma: (Int, Int, Int, Int, Int)) -> [Int]? {
            JPEGPlaneCollector.factors(
                luma: Shape(width: luma.0, height: luma.1, hSamp: luma.2, vSamp: luma.3, dctSize: luma.4),
                chroma: Shape(width: chroma.0, height: chroma.1, hSamp: chroma.2, vSamp: chroma.3, dctSize: chroma.4)
            ).map { [$0.fx, $0.fy] }
        }
        #expect(factors((2040, 1530, 2, 2, 5), (2040, 1530, 1, 1, 10)) == [2, 2])
        #expect(factors((3264, 2448, 2, 2, 8), (1632, 1224, 1, 1, 8)) == [1, 1])
        #expect(factors((3265, 2447, 2, 2, 8), (1633, 1224, 1, 1, 8)) == [1, 1])
        #expect(factors((2880, 1920, 2, 1, 5), (1440, 1920, 1, 1, 5)) == [1, 2])
        #expect(factors((600, 900, 1, 2, 5), (600, 450, 1, 1, 5)) == [2, 1])
        #expect(factors((407, 294, 1, 1, 5), (407, 294, 1, 1, 5)) == [2, 2])
        #expect(factors((1, 1, 1, 1, 8), (1, 1, 1, 1, 8)) == [1, 1])
        #expect(factors((400, 300, 4, 1, 8), (100, 300, 1, 1, 8)) == nil)
        #expect(factors((3, 1, 3, 1, 8), (2, 1, 2, 1, 8)) == nil)
        #expect(factors((2040, 1530, 2, 2, 5), (1020, 765, 1, 1, 10)) == nil)  // sizes disagree with the ratio
    }

    /// Each output the rounded mean of its (up to) 2 x 2 samples, edges repeated; the SIMD
    /// stretch and the scalar tail give the same bytes.
    @Test func chromaReductionIsTheRoundedMean() {
        var rng = SplitMix64(seed: 0x9_1A7E)
        for width in [1, 2, 3, 15, 16, 17, 31, 32, 33, 47, 100] {
            let a = (0..<width).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let b = (0..<width).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            for fx in [1, 2] {
                for same in [true, false] {
                    let outWidth = fx == 2 ? (width + 1) / 2 : width
                    var out = [UInt8](repeating: 0, count: outWidth)
                    a.withUnsafeBufferPointer { pa in
                        b.withUnsafeBufferPointer { pb in
                            out.withUnsafeMutableBufferPointer { o in
                                JPEGPlaneCollector.reduce(
                                    pa.baseAddress!, same ? pa.baseAddress! : pb.baseAddress!, width: width, fx: fx,
                                    into: o.baseAddress!)
                            }
                        }
                    }
                    let second = same ? a : b
                    let expected = (0..<outWidth).map { x -> UInt8 in
                        let x0 = fx * x, x1 = fx == 2 ? min(x0 + 1, width - 1) : x0
                        return UInt8((Int(a[x0]) + Int(a[x1]) + Int(second[x0]) + Int(second[x1]) + 2) / 4)
                    }
                    #expect(out == expected, "width \(width) fx \(fx) same rows \(same)")
                }
            }
        }
    }

    /// Planes encoded as they are decode to the same planes within the JPEG's own loss, and
    /// a gray image's planes (chroma 128; 9 x 5, odd both ways, for the luma TurboJPEG reads
    /// padded to even, `JPEGCodec.evenSized`) to gray pixels.
    @Test func planarEncodeRoundTrips() throws {
        let data = try Corpus.data("photos/mei_issue242_progressive.jpg")
        let planes = try Self.turboPlanes(data)
        let jpeg = try JPEGCodec.encode(YCbCrPlanes(y: planes[0], cb: planes[1], cr: planes[2]), quality: 95)
        let again = try Self.turboPlanes(jpeg)
        for c in 0..<3 {
            let diff = zip(planes[c].bytes, again[c].bytes).map { abs(Int($0) - Int($1)) }
            #expect(Double(diff.reduce(0, +)) / Double(diff.count) < 1.5, "component \(c)")
        }
        let flat = PixelBuffer(width: 9, height: 5, layout: .gray, bytes: [UInt8](repeating: 90, count: 45))
        let chroma = PixelBuffer(width: 5, height: 3, layout: .gray, bytes: [UInt8](repeating: 128, count: 15))
        let gray = try ImageCodecs.decode(
            try JPEGCodec.encode(YCbCrPlanes(y: flat, cb: chroma, cr: chroma), quality: 90), format: .jpeg
        ).pixels
        #expect(gray.width == 9 && gray.height == 5)
        #expect(gray.bytes.allSatisfy { abs(Int($0) - 90) <= 1 }, "\(gray.bytes)")
    }
}
