internal import CJPEGShim
import Foundation
import TestSupport
import Testing

@testable import ImageCodecs

/// The SIMD scaled IDCTs (CJPEGShim's scaled_idct.c) against libjpeg's own, block by block: the
/// same samples for every block, in range or not, and nothing written outside the NxN block.
/// Whole decodes at these scales are compared with TurboJPEG's in `JPEGPlanesTests`.
@Suite struct JPEGScaledIDCTTests {
    /// A started decoder of a fixture at `eighths`/8, planes out, for its IDCTs.
    static func withDecoder<T>(eighths: UInt32, ownIDCT: Bool = true, _ body: (OpaquePointer) throws -> T) throws -> T {
        let data = [UInt8](try Data(contentsOf: Corpus.testImages.appendingPathComponent("photo-1600x1200.jpg")))
        return try data.withUnsafeBufferPointer { bytes in
            let decoder = try #require(pa_jpeg_create(bytes.baseAddress, bytes.count, 0))
            defer { pa_jpeg_destroy(decoder) }
            pa_jpeg_set_own_idct(decoder, ownIDCT ? 1 : 0)
            var info = pa_jpeg_info()
            var output = pa_jpeg_output()
            try #require(pa_jpeg_read_header(decoder, &info) == PA_JPEG_OK)
            try #require(pa_jpeg_prepare(decoder, eighths, 8, PA_JPEG_OUT_PLANES, 0, &output) == PA_JPEG_OK)
            try #require(pa_jpeg_start(decoder) == PA_JPEG_OK)
            return try body(decoder)
        }
    }

    /// Kinds of block: what photos hold, the edges of the range the SIMD IDCT is exact for
    /// (a dequantised coefficient up to +-8191), just past it (libjpeg's own runs), and anything
    /// at all (coefficients and tables over the whole 16-bit range, as a crafted file can give).
    enum Kind: CaseIterable { case photo, sparse, edge, pastEdge, anything }

    static func block(_ kind: Kind, using rng: inout SplitMix64) -> (coefficients: [Int16], quant: [Int16]) {
        var quant = [Int16](repeating: 1, count: 64)
        var coefficients = [Int16](repeating: 0, count: 64)
        for i in 0..<64 {
            switch kind {
            case .photo:
                quant[i] = Int16.random(in: 1...40, using: &rng)
                coefficients[i] = i < 12 ? Int16.random(in: -60...60, using: &rng) : Int16.random(in: -3...3, using: &rng)
            case .sparse:
                quant[i] = Int16.random(in: 1...255, using: &rng)
                coefficients[i] = Int.random(in: 0..<6, using: &rng) == 0 ? Int16.random(in: -20...20, using: &rng) : 0
            case .edge, .pastEdge:
                quant[i] = Int16.random(in: 1...255, using: &rng)
                let limit = 8191 / Int(quant[i])
                let value = Bool.random(using: &rng) ? limit : Int.random(in: -limit...limit, using: &rng)
                coefficients[i] = Int16(Bool.random(using: &rng) ? value : -value)
            case .anything:
                quant[i] = Int16(truncatingIfNeeded: rng.next())
                coefficients[i] = Int16(truncatingIfNeeded: rng.next())
            }
        }
        if kind == .pastEdge {
            // One coefficient of the block just past the limit.
            let i = Int.random(in: 0..<64, using: &rng)
            let limit = 8191 / Int(quant[i]) + 1
            coefficients[i] = Int16(Bool.random(using: &rng) ? limit : -limit)
        }
        return (coefficients, quant)
    }

    @Test(arguments: [3, 5, 6, 7] as [UInt32])
    func everyBlockIsLibjpegsByteForByte(eighths: UInt32) throws {
        var rng = SplitMix64(seed: TestSeed.value(default: 0x1DC7_0000 + UInt64(eighths), for: "scaled IDCT \(eighths)"))
        try Self.withDecoder(eighths: eighths) { decoder in
            for kind in Kind.allCases {
                var differing = 0
                var example = ""
                for _ in 0..<4000 {
                    let (coefficients, quant) = Self.block(kind, using: &rng)
                    // Different fillers: a sample either function left unwritten shows.
                    var simd = [UInt8](repeating: 0xA5, count: 64)
                    var libjpeg = [UInt8](repeating: 0x5A, count: 64)
                    let n = Int(pa_jpeg_compare_idct(decoder, 0, coefficients, quant, &simd, &libjpeg))
                    try #require(n == Int(eighths), "component 0 at \(eighths)/8 has the \(n)x\(n) IDCT")
                    var same = true
                    for row in 0..<8 {
                        for column in 0..<8 {
                            let inside = row < n && column < n
                            let (s, l) = (simd[row * 8 + column], libjpeg[row * 8 + column])
                            if inside ? s != l : (s != 0xA5 || l != 0x5A) { same = false }
                        }
                    }
                    if !same {
                        differing += 1
                        if example.isEmpty { example = "coefficients \(coefficients), quant \(quant)" }
                    }
                }
                #expect(differing == 0, "\(kind) at \(eighths)/8: \(differing) of 4000 blocks differ, e.g. \(example)")
            }
        }
    }

    /// Sizes libjpeg-turbo does in SIMD itself, and 1/8, keep libjpeg's function.
    @Test(arguments: [1, 2, 4, 8] as [UInt32])
    func otherScalesKeepLibjpegs(eighths: UInt32) throws {
        try Self.withDecoder(eighths: eighths) { decoder in
            var simd = [UInt8](repeating: 0, count: 64), libjpeg = simd
            let coefficients = [Int16](repeating: 1, count: 64), quant = coefficients
            #expect(pa_jpeg_compare_idct(decoder, 0, coefficients, quant, &simd, &libjpeg) == 0)
        }
    }

    /// Turned off (`pa_jpeg_set_own_idct(d, 0)`, what `PUSHATTACH_JPEG_DECODER=libjpeg` sets),
    /// every scale keeps libjpeg's own IDCT.
    @Test(arguments: [3, 5, 6, 7] as [UInt32])
    func turnedOffEveryScaleKeepsLibjpegs(eighths: UInt32) throws {
        try Self.withDecoder(eighths: eighths, ownIDCT: false) { decoder in
            var simd = [UInt8](repeating: 0, count: 64), libjpeg = simd
            let coefficients = [Int16](repeating: 1, count: 64), quant = coefficients
            #expect(pa_jpeg_compare_idct(decoder, 0, coefficients, quant, &simd, &libjpeg) == 0)
        }
    }
}
