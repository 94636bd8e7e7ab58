import EngineFuzzKit
import Foundation
import ImageEngine
import MediaTypes
import Verification

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

extension MediaStage {
    /// `prepare`'s per-item call for one generated body, under a run's rules and engine limits,
    /// as `EngineFuzz` takes it.
    static func engineFuzzOutcome(_ data: Data, rules: AppleRules, limits: ProcessingLimits) -> StageOutcome {
        var options = ItemOptions(container: URL(fileURLWithPath: "/nonexistent"))
        options.cpuThreads = 1
        // `limits` first: it holds the policy, so setting it whole after the rules would undo them.
        options.limits = limits
        options.policy.rules = rules
        let facts = MediaCheck.facts(data, fileExtension: nil, policy: options.policy, readingImage: false)
        let outcome = MediaStage(options: options).prepare(data, facts: facts)
        return StageOutcome(
            prepared: outcome.status == .prepared,
            reason: outcome.refusal?.description(naming: .library) ?? outcome.failure?.reason, data: outcome.data, format: outcome.format,
            width: outcome.width, height: outcome.height, frames: outcome.frames, steps: outcome.steps,
            warnings: outcome.warnings, thumbnail: outcome.thumbnail, outputIsInput: outcome.outputIsInput)
    }
}
