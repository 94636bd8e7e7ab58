import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes
import TestSupport

/// Small doors into `ImageProcessor` for the processing tests.
enum Processing {
    /// Sniffs and processes `data` with a fresh processor.
    static func run(_ data: Data, _ limits: ProcessingLimits = ProcessingLimits()) throws -> ProcessingResult {
        try ImageProcessor().process(data, sniffed: try Sniffer.sniff(data), limits: limits)
    }

    /// Sniffs and processes a corpus file.
    static func run(corpus path: String, _ limits: ProcessingLimits = ProcessingLimits()) throws -> ProcessingResult {
        try run(try Corpus.data(path), limits)
    }

    /// Sniffs and processes a TestImages fixture.
    static func run(fixture name: String, _ limits: ProcessingLimits = ProcessingLimits()) throws -> ProcessingResult {
        try run(try fixture(name), limits)
    }

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.testImages.appendingPathComponent(name))
    }

    /// The pixels of an output, decoded at full size.
    static func pixels(_ image: ProcessedImage) throws -> PixelBuffer {
        try ImageCodecs.decode(image.data, format: image.format, options: DecodeOptions()).pixels
    }

    /// The upright size FitBox gives for a `box`-sided square, computed here independently:
    /// long side = box, short side rounded to nearest (halves up), never 0, never upscaled.
    static func expectedFit(width: Int, height: Int, box: Int) -> (width: Int, height: Int) {
        if width <= box && height <= box { return (width, height) }
        if width >= height { return (box, max(1, Int((Double(height) * Double(box) / Double(width)).rounded()))) }
        return (max(1, Int((Double(width) * Double(box) / Double(height)).rounded())), box)
    }

    /// Mean BT.601 luma of an image.
    static func meanLuma(_ image: PixelBuffer) -> Double {
        let luma = SSIM.luma(image)
        return luma.reduce(0, +) / Double(max(1, luma.count))
    }

    /// A high-quality reference thumbnail: a FULL-resolution decode, an exact integer box
    /// average (partial blocks at the edges averaged over what they cover) down to
    /// about 3× the target, the orientation applied, then the slow float Lanczos3.
    static func referenceThumbnail(_ data: Data, orientation: Orientation, size: (width: Int, height: Int)) throws
        -> PixelBuffer
    {
        let full = try ImageCodecs.decode(data, format: .jpeg, options: DecodeOptions()).pixels
        let storedTarget = orientation.swapsDimensions ? (size.height, size.width) : (size.width, size.height)
        let factor = max(1, min(full.width / (storedTarget.0 * 3), full.height / (storedTarget.1 * 3)))
        let reduced = boxReduce(full, factor: factor)
        let upright = orientation.apply(to: reduced)
        return ReferenceResize.lanczos3(upright, width: size.width, height: size.height)
    }

    /// Averages `factor`×`factor` blocks (exact integer sums, divided once at the end).
    static func boxReduce(_ image: PixelBuffer, factor: Int) -> PixelBuffer {
        guard factor > 1 else { return image }
        let c = image.layout.channels, width = image.width, height = image.height, stride = image.stride
        let w = (width + factor - 1) / factor, h = (height + factor - 1) / factor
        // Raw pointers: a debug build bounds-checks buffer subscripts, which dominates on 22 MP.
        let sums = UnsafeMutablePointer<Int>.allocate(capacity: w * h * c)
        sums.initialize(repeating: 0, count: w * h * c)
        defer { sums.deallocate() }
        image.withUnsafeBytes { raw in
            let base = raw.baseAddress!
            for y in 0..<height {
                let row = base + y * stride
                let out = sums + (y / factor) * w * c
                var x = 0
                while x < width {
                    let o = out + (x / factor) * c
                    let p = row + x * c
                    var k = 0
                    while k < c {
                        o[k] += Int(p[k])
                        k += 1
                    }
                    x += 1
                }
            }
        }
        var out = PixelBuffer(width: w, height: h, layout: image.layout)
        out.withUnsafeMutableBytes { raw in
            let d = raw.baseAddress!
            for by in 0..<h {
                let rows = min(factor, height - by * factor)
                for bx in 0..<w {
                    let count = rows * min(factor, width - bx * factor)
                    for k in 0..<c {
                        let i = (by * w + bx) * c + k
                        d[i] = UInt8((sums[i] * 2 + count) / (2 * count))
                    }
                }
            }
        }
        return out
    }
}
