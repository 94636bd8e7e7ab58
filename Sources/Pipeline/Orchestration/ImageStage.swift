import Foundation
import ImageEngine
import MediaTypes
import Verification

/// The image engine's place in the pipeline: JPEG, PNG and WebP are fitted to the limits
/// (resized, re-encoded, WebP transcoded), with an optional thumbnail. One per CPU thread: the
/// `ImageProcessor` it owns is not thread-safe.
///
/// The engine returns an image that already fits byte for byte without decoding it, so a
/// passthrough is decoded once here by `Verifier`: a truncated JPEG is rejected, not shipped.
final class ImageStage {
    private let processor = ImageProcessor()
    private let verifier: Verifier
    private let limits: ProcessingLimits

    init(options: PrepareOptions) {
        var limits = options.limits
        limits.strict = options.strict
        limits.byteCap = min(limits.byteCap, options.rules.imageByteCap)
        self.limits = limits
        verifier = Verifier(
            options: VerifyOptions(
                decode: true, strict: options.strict, pixelBudget: limits.pixelBudget, rules: options.rules))
    }

    /// Formats the engine decodes; others pass through after `AppleRules.assess`.
    static func handles(_ format: MediaFormat) -> Bool { [.jpeg, .png, .webp].contains(format) }

    func process(_ data: Data, sniffed: SniffedType) -> MediaOutcome {
        let result: ProcessingResult
        do {
            result = try processor.process(data, sniffed: sniffed, limits: limits)
        } catch {
            return .rejected(Self.reason(error, sniffed.format), format: sniffed.format)
        }
        var warnings = result.warnings
        if sniffed.isAnimated {
            warnings.append(
                "animated \(sniffed.format.displayName) (\(sniffed.frames ?? 0) frames): only the first frame was kept")
        }
        if result.passthrough {
            let report = verifier.verify(data: data, path: "download", fileExtension: nil)
            guard report.isAccepted else {
                return .rejected(
                    report.reason ?? "\(sniffed.format.displayName) is not accepted", format: sniffed.format,
                    warnings: report.warnings)
            }
            warnings += report.warnings.filter { !warnings.contains($0) }
        }
        let output = result.output
        return MediaOutcome(
            status: .prepared, data: output.data, format: output.format, width: output.width, height: output.height,
            frames: 1, steps: result.steps, warnings: warnings,
            thumbnail: result.thumbnail.map { ($0.data, $0.format) })
    }

    private static func reason(_ error: ProcessingError, _ format: MediaFormat) -> String {
        switch error {
        case .codec: "corrupt \(format.displayName): \(error)"
        case .cannotFit: "cannot fit: \(error)"
        default: "\(error)"
        }
    }
}
