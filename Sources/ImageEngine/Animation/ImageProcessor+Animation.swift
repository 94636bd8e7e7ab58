import Foundation
import ImageCodecs
import MediaTypes

/// The animation path of `ImageProcessor.process`: GIFs and animated WebPs.
///
/// Streamed frame by frame: the codec holds one canvas (and at most one saved canvas for
/// "restore to previous" disposal), this path one resized frame, the encoder its output, which
/// stops at the byte cap. No frame list is ever built; each size tried decodes the animation
/// again from its first frame.
///
/// - **Plan** (`AnimationPlan`, shared with `MediaCheck`): a GIF within every limit passes
///   through (every frame still decoded once, to prove the data whole, as stills are); an
///   animation over the frame or duration cap keeps its first frame; the rest is encoded.
/// - **Fit**: the first size is `TargetSize.main` of the canvas (long side, decoded budget). An
///   encode that passes the byte cap stops there; the next size takes the area down by what the
///   written frames foretell (cap × frames written / all frames), at least ×0.75 a step, and the
///   palette drops to 128 then 64 colours from the third try. After `maxAttempts`, or below
///   `ByteCapFitter.smallestSide`, the first frame is kept instead, with the reason.
/// - **Timing, loop count and transparency** go to `GIFEncoder` as decoded: per-frame durations
///   in milliseconds (it rounds to centiseconds, carrying the error), the container's loop
///   count, and alpha (< 128 becomes the transparent index).
extension ImageProcessor {
    /// Sizes tried before the first frame is kept instead.
    static let maxAnimationAttempts = 8
    /// The area factor of a smaller try is at most this (×0.75 of the area a step).
    static let animationShrinkStep = 0.75

    /// `data` (a GIF, or an animated WebP) fitted to `limits`; see the extension's notes.
    func processAnimation(_ data: Data, format: MediaFormat, limits: ProcessingLimits)
        throws(ProcessingError) -> ProcessingResult
    {
        var log = ProcessingLog()
        let facts = try Self.animationFacts(data, format: format, limits: limits)
        log.steps.append("animated \(format.rawValue): \(facts.summary)")
        let thumbSize = limits.thumbnailSize.map { TargetSize.thumbnail(for: facts.canvas, side: $0) }
        let plan = AnimationPlan.plan(
            format: format, byteCount: data.count, width: facts.canvas.width, height: facts.canvas.height,
            frames: facts.frames, durationMilliseconds: facts.durationMilliseconds, limits: limits)

        switch plan {
        case .passThrough:
            let thumb = try validateAnimation(data, format: format, facts: facts, thumbSize: thumbSize, limits, &log)
            log.steps.append(
                "passed through: gif \(facts.canvas.width)x\(facts.canvas.height), \(facts.frames) frames, \(data.count) bytes, within every limit"
            )
            let output = ProcessedImage(
                data: data, format: .gif, width: facts.canvas.width, height: facts.canvas.height, frames: facts.frames)
            let thumbnail = try thumb.map { thumb throws(ProcessingError) in
                try encodeThumbnail(
                thumb, icc: nil, within: Size(width: output.width, height: output.height), limits: limits, log: &log)
            }
            return result(output, passthrough: true, thumbnail: thumbnail, facts: facts, log)
        case .firstFrame(let reason):
            return try firstFrame(data, format: format, facts: facts, why: reason, thumbSize: thumbSize, limits, &log)
        case .encode(let reason):
            log.steps.append("re-encoding as gif: \(reason)")
            return try encodeAnimation(data, format: format, facts: facts, thumbSize: thumbSize, limits, &log)
        }
    }

    // MARK: - Encode

    /// The size search: encode, and on passing the byte cap, a smaller size (see the notes).
    private func encodeAnimation(
        _ data: Data, format: MediaFormat, facts: AnimationFacts, thumbSize: Size?, _ limits: ProcessingLimits,
        _ log: inout ProcessingLog
    ) throws(ProcessingError) -> ProcessingResult {
        var size = TargetSize.main(for: facts.canvas, limits: limits)
        if size != facts.canvas {
            log.steps.append(
                "sized \(facts.canvas.width)x\(facts.canvas.height) -> \(size.width)x\(size.height) for the long side and the decoded budget"
            )
        }
        let palettes: [(GIFEncoder.Quality, String)] = [
            (.standard, "256 colours"), (.compact, "128 colours"), (.smallest, "64 colours"),
        ]
        var smallestTried = size
        for attempt in 0..<Self.maxAnimationAttempts {
            let (quality, paletteName) = palettes[min(attempt / 2, palettes.count - 1)]
            let outcome = try encodeAttempt(
                data, format: format, facts: facts, size: size, quality: quality, thumbSize: thumbSize, limits)
            switch outcome {
            case .done(let gif, let frames, let thumb, let warnings):
                log.warnings += warnings
                if frames != facts.frames {
                    log.warnings.append(
                        "the \(format.displayName) container lists \(facts.frames) frames but \(frames) decoded; kept \(frames)"
                    )
                }
                if format != .gif { log.steps.append("transcoded \(format.rawValue) -> gif") }
                log.steps.append(
                    "encoded gif \(size.width)x\(size.height), \(frames) frames, \(paletteName) (\(gif.count) bytes)")
                let output = ProcessedImage(
                    data: gif, format: .gif, width: size.width, height: size.height, frames: frames)
                let thumbnail = try thumb.map { thumb throws(ProcessingError) in
                    try encodeThumbnail(
                thumb, icc: nil, within: Size(width: output.width, height: output.height), limits: limits, log: &log)
                }
                return result(output, passthrough: false, thumbnail: thumbnail, facts: facts, log)
            case .overCap(let written):
                smallestTried = size
                // The frames written foretell the whole: cap × (written + 1) / frames of area fit.
                let foretold = Double(written + 1) / Double(max(facts.frames, 1)) * 0.9
                let area = min(Self.animationShrinkStep, max(foretold, 0.1))
                let next = TargetSize.shrunk(size, by: area.squareRoot(), aspectOf: facts.canvas)
                log.steps.append(
                    "gif \(size.width)x\(size.height) (\(paletteName)) passed \(limits.byteCap) bytes after \(written) of \(facts.frames) frames"
                )
                guard max(next.width, next.height) >= ByteCapFitter.smallestSide, next != size else { break }
                size = next
                continue
            }
            break
        }
        let why =
            "no size fits the \(limits.byteCap)-byte cap (the smallest tried, \(smallestTried.width)x\(smallestTried.height), was over it)"
        return try firstFrame(data, format: format, facts: facts, why: why, thumbSize: thumbSize, limits, &log)
    }

    /// One encode attempt's result.
    private enum Attempt {
        /// The GIF, its frame count, the thumbnail's pixels (from the first frame) and the codec's warnings.
        case done(Data, frames: Int, thumb: PixelBuffer?, warnings: [String])
        /// The output passed the byte cap while frame `written` (0-based) was added.
        case overCap(written: Int)
    }

    /// Decodes every frame, resizes it to `size` and adds it to a `GIFEncoder` capped at the
    /// byte cap: one canvas (the codec's), one resized frame and the encoder's bytes at a time.
    private func encodeAttempt(
        _ data: Data, format: MediaFormat, facts: AnimationFacts, size: Size, quality: GIFEncoder.Quality,
        thumbSize: Size?, _ limits: ProcessingLimits
    ) throws(ProcessingError) -> Attempt {
        try Self.withAnimation(data, format: format, limits: limits) { source throws(ProcessingError) -> Attempt in
            var encoder: GIFEncoder
            do throws(CodecError) {
                encoder = try GIFEncoder(
                    width: size.width, height: size.height, loopCount: source.loopCount, quality: quality,
                    byteLimit: limits.byteCap)
            } catch {
                throw .codec(error)
            }
            var written = 0
            var thumb: PixelBuffer? = nil
            while let frame = try source.next() {
                if written == 0, let thumbSize { thumb = resizer.resize(frame.canvas, to: thumbSize) }
                let pixels = resizer.resize(frame.canvas, to: size)
                do throws(CodecError) {
                    try encoder.add(pixels, durationMilliseconds: frame.durationMilliseconds)
                } catch .byteLimitExceeded {
                    return .overCap(written: written)
                } catch {
                    throw .codec(error)
                }
                written += 1
            }
            guard written > 0 else {
                throw .codec(.corrupt(codec: format.displayName, message: "the animation has no frame that decodes"))
            }
            let gif: Data
            do throws(CodecError) {
                gif = try encoder.finish()
            } catch .byteLimitExceeded {
                return .overCap(written: written - 1)
            } catch {
                throw .codec(error)
            }
            return .done(gif, frames: written, thumb: thumb, warnings: Self.decodeWarnings(source, format))
        }
    }

    // MARK: - Passthrough and first frame

    /// A passthrough's proof: every frame decoded once (and dropped), the first one resized to
    /// the thumbnail when one is asked for.
    private func validateAnimation(
        _ data: Data, format: MediaFormat, facts: AnimationFacts, thumbSize: Size?, _ limits: ProcessingLimits,
        _ log: inout ProcessingLog
    ) throws(ProcessingError) -> PixelBuffer? {
        let (frames, thumb, warnings) = try Self.withAnimation(data, format: format, limits: limits) {
            source throws(ProcessingError) in
            var frames = 0
            var thumb: PixelBuffer? = nil
            while let frame = try source.next() {
                if frames == 0, let thumbSize { thumb = resizer.resize(frame.canvas, to: thumbSize) }
                frames += 1
            }
            return (frames, thumb, Self.decodeWarnings(source, format))
        }
        log.steps.append("decoded \(frames) frames to validate")
        log.warnings += warnings
        guard frames > 0 else {
            throw .codec(.corrupt(codec: format.displayName, message: "the animation has no frame that decodes"))
        }
        return thumb
    }

    /// The first frame as a still, fitted like any still (`ByteCapFitter`: JPEG, or PNG with
    /// alpha), with a warning that says which limit the animation is over and what was kept.
    private func firstFrame(
        _ data: Data, format: MediaFormat, facts: AnimationFacts, why: String, thumbSize: Size?,
        _ limits: ProcessingLimits, _ log: inout ProcessingLog
    ) throws(ProcessingError) -> ProcessingResult {
        let canvas = facts.canvas
        let main = TargetSize.main(for: canvas, limits: limits)
        var inner = log
        let (output, thumb) = try Self.withAnimation(data, format: format, limits: limits) {
            source throws(ProcessingError) -> (ProcessedImage, PixelBuffer?) in
            guard let first = try source.next() else {
                throw .codec(.corrupt(codec: format.displayName, message: "the animation has no frame that decodes"))
            }
            inner.steps.append("decoded the first frame of \(facts.frames)")
            let pixels = resizer.resize(first.canvas, to: main)
            if main != canvas {
                inner.steps.append("resized \(canvas.width)x\(canvas.height) -> \(main.width)x\(main.height)")
            }
            let opaque = AlphaChannel.isOpaque(pixels)
            let fitter = ByteCapFitter(upright: canvas, icc: nil, limits: limits, sourceFormat: format) {
                size throws(ProcessingError) in self.resizer.resize(first.canvas, to: size)
            }
            let output = try fitter.fit(pixels, format: opaque ? .jpeg : .png, opaque: opaque, log: &inner)
            let thumb = thumbSize.map { resizer.resize(first.canvas, to: $0) }
            return (output, thumb)
        }
        log = inner
        log.warnings.append(
            "animated \(format.displayName) (\(facts.frames) frames): only the first frame is kept, as \(output.format.displayName): \(why)"
        )
        let thumbnail = try thumb.map { thumb throws(ProcessingError) in
            try encodeThumbnail(
                thumb, icc: nil, within: Size(width: output.width, height: output.height), limits: limits, log: &log)
        }
        return result(output, passthrough: false, thumbnail: thumbnail, facts: facts, log)
    }

    // MARK: - Helpers

    /// The codec's lenient-mode notes, prefixed with the format.
    private static func decodeWarnings(_ source: any AnimationSource, _ format: MediaFormat) -> [String] {
        source.warnings.map { "\(format.rawValue) decode: \($0)" }
    }

    private func result(
        _ output: ProcessedImage, passthrough: Bool, thumbnail: ProcessedImage?, facts: AnimationFacts,
        _ log: ProcessingLog
    ) -> ProcessingResult {
        ProcessingResult(
            output: output, passthrough: passthrough, thumbnail: thumbnail, steps: log.steps, warnings: log.warnings,
            sourceWidth: facts.canvas.width, sourceHeight: facts.canvas.height)
    }
}
