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

/// W1 and W2: encoded bytes in, encoded JPEG bytes out, through the product's image path.
///
/// Until `ImageProcessor` lands this composes the same stages it is built from: EXIF
/// orientation, a DCT-scaled decode covering the fitted size, the fused-orientation
/// Lanczos3 `Resizer`, and the JPEG encoder.
final class FitWorker: BenchWorker {
    let box: Int
    let quality: Int
    private let resizer = Resizer()

    init(box: Int, quality: Int) {
        self.box = box
        self.quality = quality
    }

    func run(_ image: ImageSet.Image) throws -> Data? {
        let format = image.sniffed.format
        let orientation: Orientation =
            format == .jpeg ? ((try? ExifOrientation.read(jpeg: [UInt8](image.data))) ?? .up) : .up
        guard let width = image.sniffed.width, let height = image.sniffed.height else { return nil }
        let upright = orientation.uprightSize(width: width, height: height)
        let target = FitBox.fit(
            Size(width: upright.width, height: upright.height), in: Size(width: box, height: box))
        // The decode only has to cover the fitted size, in stored orientation.
        let stored = orientation.swapsDimensions ? (target.height, target.width) : (target.width, target.height)
        let decoded = try ImageCodecs.decode(
            image.data, format: format, options: DecodeOptions(minimumSize: stored, pixelBudget: 100_000_000))
        let pixels = resizer.resize(decoded.pixels, to: target, orientation: orientation)
        return try JPEGCodec.encode(pixels, quality: quality)
    }
}

/// W3: a full-size decode, nothing else.
final class DecodeWorker: BenchWorker {
    func run(_ image: ImageSet.Image) throws -> Data? {
        _ = try ImageCodecs.decode(
            image.data, format: image.sniffed.format, options: DecodeOptions(pixelBudget: 100_000_000))
        return nil
    }
}
