import MediaTypes

/// What becomes of an animation (a GIF, an animated WebP): the one decision `ImageProcessor`
/// acts on and `MediaCheck` foretells, so `prepare` and `verify` agree.
///
///     let plan = AnimationPlan.plan(
///         format: .gif, byteCount: 14_000_000, width: 640, height: 480, frames: 40, durationMilliseconds: 4000,
///         limits: ProcessingLimits())
///     // .encode(reason: "14000000 bytes is over the 10000000-byte cap")
///
/// The limits (see `ProcessingLimits`): the byte cap (Apple's 10 MB, the only one Apple
/// documents), the decoded budget (canvas width × height × 4 within `decodedBudget`, as for
/// stills), and two of our own: `maxAnimationFrames` and `maxAnimationDuration`.
package enum AnimationPlan: Sendable, Hashable {
    /// A GIF within every limit: sent byte for byte.
    case passThrough
    /// Re-encoded as an animated GIF, scaled down as far as the limits need; `reason` says why
    /// it is not sent as it is.
    case encode(reason: String)
    /// Only the first frame is kept, as a still (JPEG, or PNG with alpha); `reason` names the
    /// limit the animation is over.
    case firstFrame(reason: String)

    /// The plan for an animation of `frames` frames on a `width` × `height` canvas.
    ///
    /// - Parameters:
    ///   - format: `.gif` or `.webp` (an animated WebP is never passed through: iOS refuses WebP).
    ///   - byteCount: the file's size.
    ///   - frames: the frame count from the container; nil when not known (counts as within the cap).
    ///   - durationMilliseconds: the total duration; nil when not known (a sniffed header does not
    ///     say it), which counts as within the cap.
    /// - Complexity: O(1).
    package static func plan(
        format: MediaFormat, byteCount: Int, width: Int, height: Int, frames: Int?, durationMilliseconds: Int?,
        limits: ProcessingLimits
    ) -> AnimationPlan {
        if let frames, frames > limits.maxAnimationFrames {
            return .firstFrame(
                reason:
                    "\(frames) frames is over the cap of \(limits.maxAnimationFrames) frames (ProcessingLimits.maxAnimationFrames)"
            )
        }
        if let duration = durationMilliseconds, duration > limits.maxAnimationDuration {
            return .firstFrame(
                reason:
                    "it lasts \(duration) ms, over the cap of \(limits.maxAnimationDuration) ms (ProcessingLimits.maxAnimationDuration)"
            )
        }
        guard format == .gif else {
            return .encode(reason: "iOS does not accept \(format.displayName); the animation becomes a GIF")
        }
        if byteCount > limits.byteCap {
            return .encode(reason: "\(byteCount) bytes is over the \(limits.byteCap)-byte cap")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > limits.decodedBudget / 4 {
            return .encode(
                reason:
                    "its canvas \(width)x\(height) decodes to \(width)x\(height)x4 bytes, over the decoded budget of \(limits.decodedBudget) bytes"
            )
        }
        return .passThrough
    }

    /// The reason of `.encode` and `.firstFrame`; nil for `.passThrough`.
    package var reason: String? {
        switch self {
        case .passThrough: nil
        case .encode(let reason), .firstFrame(let reason): reason
        }
    }
}
