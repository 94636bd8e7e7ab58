import Foundation
import ImageCodecs
import Testing

@testable import ImageEngine

/// The byte cap's quality search (`QualitySearch`): the same answer as bisection, in fewer
/// encodes, on the real size curves of a photo and a screenshot-like image and a steep
/// synthetic one, for every cap between their q60 and q95 sizes.
@Suite struct QualitySearchTests {
    /// Bytes at each quality 60...95 of `pixels`, from the encoder the fitter uses.
    static func curve(_ pixels: PixelBuffer) throws -> [Int: Int] {
        var sizes: [Int: Int] = [:]
        for q in 60...95 { sizes[q] = try JPEGCodec.encode(pixels, quality: q, iccProfile: nil).count }
        return sizes
    }

    /// The fitter's search from its two first encodes (q95 over the cap, q60 under), over a
    /// known curve: its answer and its encodes (the two first included).
    static func search(_ sizes: [Int: Int], cap: Int) -> (quality: Int, encodes: Int) {
        var s = QualitySearch(lo: 60, loBytes: sizes[60]!, hi: 95, hiBytes: sizes[95]!, cap: cap)
        var encodes = 2
        while let q = s.next() {
            #expect(q > s.lo && q < s.hi, "a probe outside the bounds")
            s.record(q, bytes: sizes[q]!)
            encodes += 1
        }
        return (s.lo, encodes)
    }

    /// Bisection as the fitter did it before, for the encode count.
    static func bisect(_ sizes: [Int: Int], cap: Int) -> (quality: Int, encodes: Int) {
        var lo = 60, hi = 95, encodes = 2
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            encodes += 1
            if sizes[mid]! <= cap { lo = mid } else { hi = mid }
        }
        return (lo, encodes)
    }

    @Test func sameAnswerAsBisectionInFewerEncodes() throws {
        let photo = try Processing.pixels(ProcessedImage(
            data: try Processing.fixture("photo-1600x1200.jpg"), format: .jpeg, width: 1600, height: 1200))
        // Flat areas and sharp edges: a curve of another shape.
        var flat = PixelBuffer(width: 640, height: 480, layout: .rgb)
        for y in 0..<480 { for x in 0..<640 { for c in 0..<3 { flat[x, y, c] = UInt8((x / 40 + y / 30 + c) % 2 * 200) } } }
        // Bytes that climb steeply near q95, as noisy photos' do: the curve that holds a
        // prediction-only search to a quarter of the range per probe.
        var steep: [Int: Int] = [:]
        for q in 60...95 {
            let climb: Double = 200_000 * exp(Double(q - 95) / 2)
            steep[q] = 10_000 + 20 * (q - 60) + Int(climb)
        }
        let curves: [[Int: Int]] = [try Self.curve(photo), try Self.curve(flat), steep]
        var ours = 0, theirs = 0, cases = 0, worst = 0, compared = 0
        for sizes in curves {
            let (low, high) = (sizes[60]!, sizes[95]!)
            for cap in Swift.stride(from: low, to: high, by: max(1, (high - low) / 97)) {
                let expected = (60...95).last { sizes[$0]! <= cap }!
                let found = Self.search(sizes, cap: cap), bisected = Self.bisect(sizes, cap: cap)
                // Where bytes do not grow with quality everywhere, the answer still fits.
                #expect(sizes[found.quality]! <= cap)
                if sizes.keys.sorted().map({ sizes[$0]! }) == sizes.keys.sorted().map({ sizes[$0]! }).sorted() {
                    #expect(found.quality == expected && bisected.quality == expected, "cap \(cap)")
                    compared += 1
                }
                ours += found.encodes
                theirs += bisected.encodes
                worst = max(worst, found.encodes)
                cases += 1
            }
        }
        print(
            "QualitySearchTests: \(cases) caps, encodes per search \(Double(ours) / Double(cases)) "
                + "(bisection \(Double(theirs) / Double(cases))), at most \(worst)")
        #expect(compared >= 97, "the steep curve rises everywhere: its answers are compared")
        #expect(ours < theirs)
        #expect(worst <= 9, "a search of more than bisection's 8 encodes and one")
    }
}
