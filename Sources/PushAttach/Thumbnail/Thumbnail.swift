import Foundation
import ImageEngine
import MediaTypes
import SystemSupport
import Verification

/// A small image made from image bytes, for a preview: decoded straight at the smallest codec
/// scale that covers it (a JPEG's DCT scaling: 1/2, 1/4, 1/8), never at full size first, and
/// always encoded anew (never the input handed back).
///
///     let photo = try Data(contentsOf: URL(fileURLWithPath: "photo.jpg"))
///     let thumbnail = try await Thumbnail.image(from: photo, maxSide: 256)
///     thumbnail.size     // 256×171
///     thumbnail.format   // .jpeg
public struct Thumbnail: Sendable, Hashable {
    /// The encoded thumbnail.
    public var data: Data
    /// Its pixel size, upright: the long side is at most the `maxSide` asked for.
    public var size: PixelSize
    /// `.jpeg`, or `.png` when the image has real transparency (JPEG has none). An animation's
    /// thumbnail is its first frame, a still.
    public var format: MediaFormat
    /// What was done, one step each ("decoded at 1/8: …", "resized …", "encoded jpeg q80").
    public var steps: [String]
    /// What the decoder recovered from, and other things worth a look.
    public var warnings: [String]

    /// A thumbnail of JPEG, PNG, WebP, GIF, HEIC or AVIF `data` whose long side fits in `maxSide`:
    /// a JPEG, or a PNG when the image has transparency; an animation's first frame, scaled.
    ///
    ///     let thumbnail = try await Thumbnail.image(from: photo, maxSide: 256, quality: 70)
    ///     try thumbnail.data.write(to: URL(fileURLWithPath: "thumb.\(thumbnail.format.fileExtension)"))
    ///
    /// Orientation (Exif) is applied. A progressive JPEG decoded at 1/8 is read only up to the
    /// scans that image needs (its DC scans): damage in its later scans goes unseen, which a
    /// preview can afford (`ProcessingLimits.validateAllScans` is false here). The work runs on
    /// threads of its own, off Swift's cooperative pool.
    ///
    /// - Parameters:
    ///   - data: the image's bytes (JPEG, PNG, GIF, WebP, HEIC or AVIF).
    ///   - maxSide: the side of the square box the thumbnail fits in (at least 1).
    ///   - quality: JPEG quality, 1...100.
    /// - Throws: `AttachmentError` of kind `.invalidArgument` for a side or quality out of
    ///   range, `.rejected` for bytes that are not a decodable image (or a pixel bomb; `refusal`
    ///   says which, `.noPicture` for audio and movies), `.processingFailed` when the engine
    ///   fails, `.cancelled` when the task was cancelled (at once while the call waits for one
    ///   of the threads; a decode already running finishes first).
    /// - Complexity: one decode at reduced scale (an animation's first frame only), one resize,
    ///   two small encodes.
    public static func image(from data: Data, maxSide: Int, quality: Int = 80) async throws(AttachmentError)
        -> Thumbnail
    {
        guard maxSide >= 1 else {
            throw AttachmentError(kind: .invalidArgument, reason: "maxSide is \(maxSide); it must be at least 1")
        }
        guard (1...100).contains(quality) else {
            throw AttachmentError(kind: .invalidArgument, reason: "quality is \(quality); it must be within 1...100")
        }
        if Task.isCancelled { throw .cancelled(nil) }
        let chosen = limits(maxSide: maxSide, quality: quality)
        let policy = chosen.policy
        // Cancelled while it waits for a thread, the call ends at once and its decode never runs.
        let ran: Result<ProcessingResult, AttachmentError>? = await Offload.images.runUnlessCancelled { processor in
            let facts = MediaCheck.facts(data, fileExtension: nil, policy: policy)
            let plan = Planner.thumbnailPlan(facts, policy: policy)
            if let refusal = plan.refusal { return .failure(AttachmentError(refusal, url: nil)) }
            do throws(ProcessingError) {
                return .success(try processor.process(data, facts: facts, plan: plan, limits: chosen))
            } catch {
                guard let problem = error.problem else {
                    return .failure(AttachmentError(kind: .processingFailed, reason: error.description, underlying: .processing(error)))
                }
                let refusal = Planner.refusal(for: problem, format: facts.format, policy: policy)
                return .failure(AttachmentError(refusal, url: nil))
            }
        }
        guard let outcome = ran else { throw .cancelled(nil) }
        let processed: ProcessingResult
        switch outcome {
        case .success(let result): processed = result
        case .failure(let error): throw error
        }
        if Task.isCancelled { throw .cancelled(nil) }
        // `thumbnailSize` is set, so the engine always encodes one (from the main output, or on a
        // passthrough from a decode at its own scale).
        guard let thumb = processed.thumbnail else {
            throw AttachmentError(kind: .processingFailed, reason: "the engine made no thumbnail")
        }
        return Thumbnail(
            data: thumb.data, size: PixelSize(width: thumb.width, height: thumb.height), format: thumb.format,
            steps: processed.steps, warnings: processed.warnings)
    }

    /// The engine's limits for a thumbnail: the main output fitted to the same box (so the
    /// thumbnail is taken from it, the decode at the scale that box needs), an animation cut to
    /// its first frame (one frame over a cap of 1: only that frame is decoded).
    static func limits(maxSide: Int, quality: Int) -> ProcessingLimits {
        var limits = ProcessingLimits()
        limits.maxLongSide = maxSide
        limits.thumbnailSize = maxSide
        limits.quality = quality
        limits.thumbnailQuality = quality
        limits.qualityFloor = min(limits.qualityFloor, quality)
        limits.maxAnimationFrames = 1
        limits.validateAllScans = false
        return limits
    }
}
