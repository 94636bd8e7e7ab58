import Foundation
import MediaTypes
import Verification

/// The seam to the image engine: fit to limits, transcode, thumbnail.
///
/// Until `ImageProcessor` is in, images iOS accepts pass through after a full decode check, and
/// formats that need the engine are rejected with a reason.
final class ImageStage {
    private let verifier: Verifier

    init(options: PrepareOptions) {
        verifier = Verifier(options: VerifyOptions(decode: true, strict: options.strict, rules: options.rules))
    }

    /// Formats the engine decodes; others pass through.
    static func handles(_ format: MediaFormat) -> Bool { [.jpeg, .png, .webp].contains(format) }

    func process(_ data: Data, sniffed: SniffedType) -> MediaOutcome {
        let report = verifier.verify(data: data, path: "download", fileExtension: nil)
        guard report.isAccepted else {
            return .rejected(
                report.reason ?? "\(sniffed.format.displayName) is not accepted", format: sniffed.format,
                warnings: report.warnings)
        }
        return MediaOutcome(
            status: .prepared, data: data, format: sniffed.format, width: sniffed.width, height: sniffed.height,
            frames: sniffed.frames, steps: ["passed through \(sniffed.format.displayName)"], warnings: report.warnings)
    }
}
