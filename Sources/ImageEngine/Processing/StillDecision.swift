import Foundation
import MediaTypes

/// Whether a still image is sent as it is or re-encoded: the one rule `process` acts on and
/// `MediaCheck.plan` foretells, so `verify` and `prepare` cannot disagree on it.
///
///     let d = StillDecision(format: .jpeg, byteCount: 2_000_000, stored: Size(width: 4000, height: 3000),
///                           orientation: .up, isCMYK: false, limits: ProcessingLimits())
///     d.passThrough   // false: 4000x3000 is over the 2048 long side
///     d.mainSize      // 2048x1536
package struct StillDecision: Sendable, Hashable {
    /// The image upright (the orientation applied to the stored size).
    package var upright: Size
    /// The size the output is fitted to: the long side and the decoded budget.
    package var mainSize: Size
    /// True when the bytes are sent unchanged: an accepted format, within the byte cap, the
    /// long side and the memory budget, upright, and not CMYK.
    package var passThrough: Bool
    /// Why not, one phrase per limit (empty on a passthrough).
    package var reasons: [String]

    package init(
        format: MediaFormat, byteCount: Int, stored: Size, orientation: Orientation, isCMYK: Bool,
        limits: ProcessingLimits
    ) {
        upright = orientation.swapsDimensions ? Size(width: stored.height, height: stored.width) : stored
        mainSize = TargetSize.main(for: upright, limits: limits)
        var reasons: [String] = []
        if !limits.policy.rules.isAccepted(format) { reasons.append("iOS does not accept \(format.displayName)") }
        if byteCount > limits.byteCap { reasons.append("\(byteCount) bytes is over the \(limits.byteCap)-byte cap") }
        if max(upright.width, upright.height) > limits.maxLongSide {
            reasons.append("\(upright.width)x\(upright.height) is over the \(limits.maxLongSide)-pixel long side")
        } else if mainSize != upright {
            reasons.append(
                "\(upright.width)x\(upright.height) decodes to more than the \(limits.decodedBudget)-byte decoded budget")
        }
        if orientation != .up { reasons.append("it is stored turned (orientation \(orientation.rawValue))") }
        if isCMYK { reasons.append("it is CMYK") }
        self.reasons = reasons
        passThrough = reasons.isEmpty
    }
}

extension ImageProcessor {
    /// An animation's plan from its container (frames, canvas, durations; no frame decoded), the
    /// plan `process` acts on.
    package static func animationPlan(_ data: Data, format: MediaFormat, limits: ProcessingLimits)
        throws(ProcessingError) -> AnimationPlan
    {
        let facts = try animationFacts(data, format: format, limits: limits)
        return AnimationPlan.plan(
            format: format, byteCount: data.count, width: facts.canvas.width, height: facts.canvas.height,
            frames: facts.frames, durationMilliseconds: facts.durationMilliseconds, limits: limits)
    }
}
