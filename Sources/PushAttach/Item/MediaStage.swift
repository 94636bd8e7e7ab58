import Fetch
import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes
import SystemSupport
import Verification

/// What the sniff → reconcile → assess → engine stage made of one body.
package struct MediaOutcome: Sendable {
    package var status: ManifestEntry.Status
    /// What was done, in the words of the plan `verify` prints (`AttachmentPlan.Action`): read
    /// from what the engine did, never from the plan, so a test can hold the two side by side.
    package var action: AttachmentPlan.Action = .refuse
    /// The UNErrorCode iOS would give the file, on a rejection iOS would make too.
    package var errorCode: UNErrorCode?
    package var reason: String?
    /// The bytes to write (nil unless prepared).
    package var data: Data?
    package var format: MediaFormat?
    package var width: Int?
    package var height: Int?
    package var frames: Int?
    /// The input's pixel size: upright when its orientation could be read, else as stored.
    package var sourceWidth: Int?
    package var sourceHeight: Int?
    package var steps: [String] = []
    package var warnings: [String] = []
    package var thumbnail: (data: Data, format: MediaFormat)?
    package var sha256: String?
    /// On a refusal: the first bytes of the input (`ManifestEntry.firstBytesCount`), for people.
    package var firstBytes: Data?
    /// True when `data` is the input unchanged (passed through): a spooled body is then moved
    /// into place instead of written.
    package var outputIsInput = false

    package static func rejected(
        _ reason: String, code: UNErrorCode?, format: MediaFormat? = nil, warnings: [String] = []
    ) -> MediaOutcome {
        MediaOutcome(status: .rejected, errorCode: code, reason: reason, format: format, warnings: warnings)
    }

    package static func rejected(_ rejection: CheckRejection, warnings: [String] = []) -> MediaOutcome {
        .rejected(
            rejection.reason, code: rejection.code, format: rejection.format == .unknown ? nil : rejection.format,
            warnings: warnings + rejection.warnings.filter { !warnings.contains($0) })
    }

    /// This outcome with the input's size set from `size`.
    package func withSource(_ size: (width: Int, height: Int)?) -> MediaOutcome {
        var copy = self
        copy.sourceWidth = size?.width
        copy.sourceHeight = size?.height
        return copy
    }
}

/// The claims other than the bytes about what a download is.
package struct MediaClaims: Sendable {
    package var mediaType: String?
    package var contentType: String?
    package var urlExtension: String?

    package var typeClaims: [TypeClaim] {
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
package final class MediaStage {
    private let processor = ImageProcessor()
    private let policy: AttachmentPolicy
    private let limits: ProcessingLimits

    package init(options: ItemOptions) {
        policy = options.policy
        limits = policy.limits(options.limits)
    }

    /// `body` in memory or spooled: a spooled one is mapped, not read (`FetchBody.data()`), and
    /// when it is passed through, its hash is the one computed as it streamed.
    package func prepare(_ body: FetchBody, claims: MediaClaims) -> MediaOutcome {
        let data: Data
        do { data = try body.data() } catch {
            return MediaOutcome(status: .failed, reason: "cannot read the downloaded body back: \(error)")
        }
        return prepare(data, claims: claims, streamedDigest: body.streamedDigest)
    }

    /// `streamedDigest`: the SHA-256 of `data` already computed (as it was spooled), if any. A
    /// refusal keeps the input's first bytes, so the report can show what arrived (the caller
    /// drops them for a local file: they are the user's, not what a server sent).
    package func prepare(_ data: Data, claims: MediaClaims, streamedDigest: String? = nil) -> MediaOutcome {
        var outcome = judge(data, claims: claims, streamedDigest: streamedDigest)
        if outcome.status != .prepared, !data.isEmpty {
            outcome.firstBytes = Data(data.prefix(ManifestEntry.firstBytesCount))
        }
        return outcome
    }

    private func judge(_ data: Data, claims: MediaClaims, streamedDigest: String?) -> MediaOutcome {
        let id: Identification
        switch MediaCheck.identify(data, claims: claims.typeClaims, fileExtension: nil, policy: policy) {
        case .failure(let rejection): return .rejected(rejection)
        case .success(let identification): id = identification
        }
        var outcome =
            ImageProcessor.processedFormats.contains(id.sniffed.format)
            ? image(data, id) : passThrough(data, id)
        guard outcome.status == .prepared, let output = outcome.data else { return outcome }
        outcome.action = Self.action(
            of: outcome, input: id.sniffed, urlExtension: claims.urlExtension, rules: policy.rules)
        // The final word: what we write must be something iOS takes as it is.
        if let rejection = MediaCheck.checkOutput(output, policy: policy) {
            var rejected = MediaOutcome.rejected(rejection, warnings: outcome.warnings)
            (rejected.sourceWidth, rejected.sourceHeight) = (outcome.sourceWidth, outcome.sourceHeight)
            return rejected
        }
        outcome.sha256 = (outcome.outputIsInput ? streamedDigest : nil) ?? SHA256.hexDigest(of: output)
        return outcome
    }

    /// What the engine did, in the plan's words: the input's bytes under a name that says their
    /// type (or a new one), an animation re-encoded or cut to its first frame, a format iOS
    /// refuses converted, or one it takes fitted. A URL without an extension is renamed: the
    /// written file gets one.
    package static func action(
        of outcome: MediaOutcome, input: SniffedType, urlExtension: String?, rules: AppleRules
    ) -> AttachmentPlan.Action {
        if outcome.outputIsInput {
            return MediaCheck.isRenamed(input.format, fileExtension: urlExtension ?? "") ? .rename : .passThrough
        }
        if input.format == .gif || (input.format == .webp && input.isAnimated) {
            return outcome.format == .gif ? .reencodeAnimation : .firstFrame
        }
        return rules.isAccepted(input.format) ? .fit : .convert
    }

    /// JPEG, PNG, WebP, GIF, HEIC and AVIF: fitted to the limits (resized, re-encoded; WebP, HEIC
    /// and AVIF transcoded; an animated WebP, or a GIF over the limits, re-encoded as an animated
    /// GIF), with an optional thumbnail. A passthrough is still decoded once by the engine, so
    /// damaged data is refused (or, when accepted, reported) exactly as `verify` does.
    ///
    /// Warnings: the claims', then the engine's. The rules' warnings (a decoded size over the
    /// memory budget, an animation that keeps only its first frame) foretell what the engine
    /// does; once it has run, its own account of it replaces them, so each is said once.
    private func image(_ data: Data, _ id: Identification) -> MediaOutcome {
        let sniffed = id.sniffed
        let result: ProcessingResult
        do {
            result = try processor.process(data, sniffed: sniffed, limits: limits)
        } catch {
            return .rejected(
                MediaCheck.rejection(for: error, format: sniffed.format, policy: policy), warnings: id.warnings
            ).withSource(uprightSize(data, sniffed))
        }
        let output = result.output
        // The engine read the orientation already: no second look at the header.
        let source = (result.uprightSourceSize.width, result.uprightSourceSize.height)
        return MediaOutcome(
            status: .prepared, data: output.data, format: output.format, width: output.width, height: output.height,
            frames: result.passthrough ? (sniffed.frames ?? output.frames) : output.frames, sourceWidth: source.0, sourceHeight: source.1,
            steps: result.steps, warnings: id.claimWarnings + result.warnings,
            thumbnail: result.thumbnail.map { ($0.data, $0.format) }, outputIsInput: result.passthrough)
    }

    /// The input's upright size when the engine refused it (so it reported none): its header's
    /// size turned by its orientation, read from the header and metadata without decoding
    /// (`MediaCheck.inspectImage`, `decode: false`). When
    /// that fails (a damaged header or Exif block, the pixel budget), the size the sniffer read
    /// from the header, as stored; nil when it read none.
    private func uprightSize(_ data: Data, _ sniffed: SniffedType) -> (width: Int, height: Int)? {
        if case .success(let inspection?) = MediaCheck.inspectImage(
            data, sniffed: sniffed, policy: policy, decode: false)
        {
            return inspection.orientation.uprightSize(width: inspection.width, height: inspection.height)
        }
        guard let width = sniffed.width, let height = sniffed.height else { return nil }
        return (width, height)
    }

    /// Audio and video: written as they came when iOS accepts them. The engine does not
    /// decode them, so no thumbnail is made: for an image, a warning says so when one was asked.
    private func passThrough(_ data: Data, _ id: Identification) -> MediaOutcome {
        let sniffed = id.sniffed
        let source = sniffed.width.flatMap { w in sniffed.height.map { (width: w, height: $0) } }
        switch id.assessment.verdict {
        case .accepted:
            var warnings = id.warnings
            if limits.thumbnailSize != nil, sniffed.format.category == .image {
                warnings.append("no thumbnail: \(sniffed.format.displayName) is not decoded by the engine")
            }
            return MediaOutcome(
                status: .prepared, data: data, format: sniffed.format, width: sniffed.width, height: sniffed.height,
                frames: sniffed.frames, sourceWidth: source?.width, sourceHeight: source?.height,
                steps: ["passed through \(sniffed.format.displayName)"], warnings: warnings, outputIsInput: true)
        case .transcode(let target):
            // Sent as it is, iOS would not take the type (101).
            return MediaOutcome.rejected(
                "\(sniffed.format.displayName) needs transcoding to \(target.displayName), which this build cannot do",
                code: .unrecognizedType, format: sniffed.format, warnings: id.warnings
            ).withSource(source)
        case .rejected(let code, let reason):
            return MediaOutcome.rejected(reason, code: code, format: sniffed.format, warnings: id.warnings)
                .withSource(source)
        }
    }
}

extension FetchBody {
    /// The SHA-256 (hex) computed as the body was spooled, if it was.
    package var streamedDigest: String? {
        if case .file(let file) = self { return file.digest }
        return nil
    }
}

/// SystemSupport's SHA-256 as the spool's streaming digest, so a spooled body that is passed
/// through is hashed once, as it arrives, and never read back.
package struct SpoolSHA256: BodyDigest {
    private var hasher = SHA256()

    package mutating func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bytes) }
    package mutating func finish() -> String { hasher.finalize().hexString }
}
