import Fetch
import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes
import SystemSupport
import Verification

/// What the plan → engine stage made of one body: the plan it carried out (a refusal met on the
/// way replaces it), the deviation the engine took, and what it wrote.
package struct MediaOutcome: Sendable {
    /// What was planned and done; `.refuse` with its refusal when the bytes are refused.
    package var plan: Plan
    /// What the engine did otherwise than planned (one of `plan.mayDeviate`).
    package var deviation: Plan.Deviation?
    /// Why the item failed here, and the words for it: its body could not be read back from the
    /// spool, or the engine could not run with the limits given (`failed`).
    package var failure: (kind: ItemFailure, reason: String)?
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

    package init(plan: Plan) { self.plan = plan }

    /// Prepared, rejected (the plan refuses) or failed (the body could not be read back).
    package var status: ManifestEntry.Status {
        failure != nil ? .failed : plan.action == .refuse ? .rejected : .prepared
    }

    /// The refusal, on a rejection.
    package var refusal: Refusal? { plan.refusal }

    /// `plan` refusing, with what the facts say of the input (its format and size).
    static func refused(_ plan: Plan, facts: MediaFacts, warnings: [String]) -> MediaOutcome {
        var outcome = MediaOutcome(plan: plan)
        let format = facts.format
        outcome.format = format == .unknown ? nil : format
        outcome.warnings = warnings
        let size = facts.image.map { $0.animation?.canvas ?? $0.upright }
            ?? facts.sniffed.width.flatMap { w in facts.sniffed.height.map { Size(width: w, height: $0) } }
        (outcome.sourceWidth, outcome.sourceHeight) = (size?.width, size?.height)
        return outcome
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

/// One per CPU thread: reads an image's codec header into the item's facts (the sniff came
/// before admission), plans once (`Planner.plan`), and has the engine carry the plan out; audio
/// and movies are passed through as planned; the output is hashed. Not thread-safe (the engine
/// is not).
package final class MediaStage {
    private let processor = ImageProcessor()
    private let policy: AttachmentPolicy
    private let limits: ProcessingLimits

    package init(options: ItemOptions) {
        policy = options.policy
        limits = options.limits
    }

    /// `body` in memory or spooled: a spooled one is mapped, not read (`FetchBody.data()`), and
    /// when it is passed through, its hash is the one computed as it streamed.
    package func prepare(_ body: FetchBody, facts: MediaFacts) -> MediaOutcome {
        let data: Data
        do { data = try body.data() } catch {
            var outcome = MediaOutcome(plan: Planner.plan(facts, policy: policy))
            outcome.failure = (.read, "cannot read the downloaded body back: \(error)")
            return outcome
        }
        return prepare(data, facts: facts, streamedDigest: body.streamedDigest)
    }

    /// `facts`: what the one sniff of `data` found (`MediaCheck.facts` without the image read).
    /// `streamedDigest`: the SHA-256 of `data` already computed (as it was spooled), if any. A
    /// refusal keeps the input's first bytes, so the report can show what arrived (the caller
    /// drops them for a local file: they are the user's, not what a server sent).
    package func prepare(_ data: Data, facts: MediaFacts, streamedDigest: String? = nil) -> MediaOutcome {
        var facts = facts
        MediaCheck.readImage(data, into: &facts, policy: policy)
        let plan = Planner.plan(facts, policy: policy)
        var outcome = carryOut(plan, data, facts: facts)
        if outcome.status == .prepared, let output = outcome.data {
            outcome.sha256 = (outcome.outputIsInput ? streamedDigest : nil) ?? SHA256.hexDigest(of: output)
        } else if !data.isEmpty {
            outcome.firstBytes = Data(data.prefix(ManifestEntry.firstBytesCount))
        }
        return outcome
    }

    private func carryOut(_ plan: Plan, _ data: Data, facts: MediaFacts) -> MediaOutcome {
        let notes = plan.notes.map(\.description) + (facts.image?.notes ?? [])
        guard plan.action != .refuse else { return .refused(plan, facts: facts, warnings: notes) }
        guard Planner.processedFormats.contains(facts.format) else { return passThrough(plan, data, facts, notes) }
        let result: ProcessingResult
        do {
            result = try processor.process(data, facts: facts, plan: plan, limits: limits)
        } catch {
            guard let problem = error.problem else {
                // Limits no image can meet: the run's settings, not the bytes.
                var outcome = MediaOutcome(plan: plan)
                outcome.failure = (.settings, error.description(naming: policy.settingNames))
                return outcome
            }
            let refusal = Planner.refusal(for: problem, format: facts.format, policy: policy)
            return .refused(Planner.refused(refusal, as: plan), facts: facts, warnings: notes)
        }
        let output = result.output
        var outcome = MediaOutcome(plan: plan)
        outcome.deviation = result.deviation
        outcome.data = output.data
        outcome.format = output.format
        (outcome.width, outcome.height) = (output.width, output.height)
        outcome.frames = result.passthrough ? (facts.sniffed.frames ?? output.frames) : output.frames
        // The engine read the orientation already: no second look at the header.
        (outcome.sourceWidth, outcome.sourceHeight) = (result.uprightSourceSize.width, result.uprightSourceSize.height)
        outcome.steps = result.steps
        // The image read's notes are the engine's first warnings.
        outcome.warnings = plan.notes.map(\.description) + result.warnings
        outcome.thumbnail = result.thumbnail.map { ($0.data, $0.format) }
        outcome.outputIsInput = result.passthrough
        return outcome
    }

    /// Audio and video: written as they came, as planned. The engine does not decode them, so
    /// no thumbnail is made: for an image, a warning says so when one was asked.
    private func passThrough(_ plan: Plan, _ data: Data, _ facts: MediaFacts, _ notes: [String]) -> MediaOutcome {
        let sniffed = facts.sniffed
        var outcome = MediaOutcome(plan: plan)
        outcome.data = data
        outcome.format = sniffed.format
        (outcome.width, outcome.height, outcome.frames) = (sniffed.width, sniffed.height, sniffed.frames)
        (outcome.sourceWidth, outcome.sourceHeight) = (sniffed.width, sniffed.height)
        outcome.steps = ["passed through \(sniffed.format.displayName)"]
        outcome.warnings = notes
        if limits.thumbnailSize != nil, sniffed.format.category == .image {
            outcome.warnings.append("no thumbnail: \(sniffed.format.displayName) is not decoded by the engine")
        }
        outcome.outputIsInput = true
        return outcome
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
