import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes

/// One thread's worker: owns whatever the product keeps per thread and runs one image.
/// Workers are never shared; the runner hands each thread its own.
protocol BenchWorker: AnyObject {
    /// Processes one image and returns the encoded output (nil for decode-only work).
    func run(_ image: ImageSet.Image) throws -> Data?
}

/// W1 and W2: encoded bytes in, encoded JPEG bytes out, through the product's `ImageProcessor`
/// (one per thread, as the pipeline keeps it). W1 is expressed as the main output fitted in a
/// 256 box at quality 80: the processor's thumbnail is a by-product of a larger main output.
final class FitWorker: BenchWorker {
    let limits: ProcessingLimits
    private let processor = ImageProcessor()

    init(box: Int, quality: Int, validateAllScans: Bool) {
        limits = ProcessingLimits(maxLongSide: box, quality: quality, validateAllScans: validateAllScans)
    }

    func run(_ image: ImageSet.Image) throws -> Data? {
        try processor.process(image.data, sniffed: image.sniffed, limits: limits).output.data
    }
}

/// W3: a full-size decode, nothing else. With `box`: the scaled decode W1/W2 make (covering the
/// fitted size, in stored orientation), alone: the floor our own codec sets.
final class DecodeWorker: BenchWorker {
    let box: Int?
    let validateAllScans: Bool

    init(box: Int?, validateAllScans: Bool) {
        self.box = box
        self.validateAllScans = validateAllScans
    }

    func run(_ image: ImageSet.Image) throws -> Data? {
        var options = DecodeOptions(pixelBudget: 100_000_000)
        options.validateAllScans = validateAllScans
        if let box, let width = image.sniffed.width, let height = image.sniffed.height {
            let fitted = FitBox.fit(Size(width: width, height: height), in: Size(width: box, height: box))
            options.minimumSize = (fitted.width, fitted.height)
        }
        _ = try ImageCodecs.decode(image.data, format: image.sniffed.format, options: options)
        return nil
    }
}
