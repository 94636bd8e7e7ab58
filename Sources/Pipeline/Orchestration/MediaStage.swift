import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes
import Verification

/// What the sniff → reconcile → assess → engine stage made of one body.
struct MediaOutcome: Sendable {
    var status: ManifestEntry.Status
    var reason: String?
    /// The bytes to write (nil unless prepared).
    var data: Data?
    var format: MediaFormat?
    var width: Int?
    var height: Int?
    var frames: Int?
    var steps: [String] = []
    var warnings: [String] = []
    var thumbnail: (data: Data, format: MediaFormat)?
    var sha256: String?

    static func rejected(_ reason: String, format: MediaFormat? = nil, warnings: [String] = []) -> MediaOutcome {
        MediaOutcome(status: .rejected, reason: reason, format: format, warnings: warnings)
    }

    static func rejected(_ rejection: CheckRejection, warnings: [String] = []) -> MediaOutcome {
        .rejected(
            rejection.reason, format: rejection.format == .unknown ? nil : rejection.format,
            warnings: warnings + rejection.warnings.filter { !warnings.contains($0) })
    }
}

/// The claims other than the bytes about what a download is.
struct MediaClaims: Sendable {
    var mediaType: String?
    var contentType: String?
    var urlExtension: String?

    var typeClaims: [TypeClaim] {
        var claims: [TypeClaim] = []
        if let mediaType { claims.append(TypeClaim(.mediaType, mediaType)) }
        if let contentType { claims.append(TypeClaim(.contentType, contentType)) }
        if let urlExtension { claims.append(TypeClaim(.urlExtension, urlExtension)) }
        return claims
    }
}

/// One per CPU thread: the per-file decision of `MediaCheck` (the one `verify` makes) with the
/// engine in the middle. Identify (sniff, claims, rules); images through the engine (pixel
/// budget, damage policy, fit, transcode), other media by the rules' verdict; the output checked
/// under its final name; hashed. Not thread-safe (the engine is not).
final class MediaStage {
    private let processor = ImageProcessor()
    private let policy: CheckPolicy
    private let limits: ProcessingLimits

    init(options: PrepareOptions) {
        policy = options.policy
        limits = policy.limits(options.limits)
    }

    func prepare(_ data: Data, claims: MediaClaims) -> MediaOutcome {
        let id: Identification
        switch MediaCheck.identify([UInt8](data), claims: claims.typeClaims, fileExtension: nil, policy: policy) {
        case .failure(let rejection): return .rejected(rejection)
        case .success(let identification): id = identification
        }
        var outcome =
            ImageCodecs.decodableFormats.contains(id.sniffed.format)
            ? image(data, id) : passThrough(data, id)
        guard outcome.status == .prepared, let output = outcome.data else { return outcome }
        // The final word: what we write must be something iOS takes as it is.
        if let rejection = MediaCheck.checkOutput(output, policy: policy) {
            return .rejected(rejection, warnings: outcome.warnings)
        }
        outcome.sha256 = SHA256.hexDigest(of: output)
        return outcome
    }

    /// JPEG, PNG and WebP: fitted to the limits (resized, re-encoded, WebP transcoded), with an
    /// optional thumbnail. A passthrough is still decoded once by the engine, so damaged data is
    /// refused (or, when accepted, reported) exactly as `verify` does.
    private func image(_ data: Data, _ id: Identification) -> MediaOutcome {
        let sniffed = id.sniffed
        let result: ProcessingResult
        do {
            result = try processor.process(data, sniffed: sniffed, limits: limits)
        } catch {
            return .rejected(
                MediaCheck.rejection(for: error, format: sniffed.format, policy: policy), warnings: id.warnings)
        }
        var warnings = id.warnings.filter { !$0.hasPrefix("decoded size") } + result.warnings
        if sniffed.isAnimated {
            warnings.append(
                "animated \(sniffed.format.displayName) (\(sniffed.frames ?? 0) frames): only the first frame was kept")
        }
        let output = result.output
        return MediaOutcome(
            status: .prepared, data: output.data, format: output.format, width: output.width, height: output.height,
            frames: 1, steps: result.steps, warnings: warnings,
            thumbnail: result.thumbnail.map { ($0.data, $0.format) })
    }

    /// Audio, video and GIF: written as they came when iOS accepts them.
    private func passThrough(_ data: Data, _ id: Identification) -> MediaOutcome {
        let sniffed = id.sniffed
        switch id.assessment.verdict {
        case .accepted:
            return MediaOutcome(
                status: .prepared, data: data, format: sniffed.format, width: sniffed.width, height: sniffed.height,
                frames: sniffed.frames, steps: ["passed through \(sniffed.format.displayName)"], warnings: id.warnings)
        case .transcode(let target):
            return .rejected(
                "\(sniffed.format.displayName) needs transcoding to \(target.displayName), which this build cannot do",
                format: sniffed.format, warnings: id.warnings)
        case .rejected(_, let reason):
            return .rejected(reason, format: sniffed.format, warnings: id.warnings)
        }
    }
}
