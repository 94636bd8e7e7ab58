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
/// - **Plan** (`Planner.plan`): a GIF within every limit passes through (every frame still
///   decoded once, to prove the data whole, as stills are); an animation over the frame or
///   duration cap keeps its first frame; the rest is encoded.
/// - **Fit**: the first size is `TargetSize.main` of the canvas (long side, decoded budget), made
///   smaller up front for a GIF over the byte cap: its own bytes foretell ours (both are palette
///   images, LZW-coded, with frame differencing), so the area is cut to bring them under the cap
///   (`predictedArea`). An encode stops as soon as the frames written foretell the whole over the
///   cap (`foretoldBytes`), or when it passes the cap, and the next size is cut by what they
///   foretold (`areaFactor`, at least ×0.75 of the area a step). Each encode is a full decode,
///   resize and libimagequant pass over every frame, so a good first guess is most of the speed:
///   a 15 MB GIF fits in one encode instead of three. The attempts share one `GIFPalettes`: a
///   retry's frames are remapped to the palettes the attempt before it kept, and quantised
///   afresh only where those show them clearly worse. The palette drops to 128 colours from the
///   fourth try and 64 from the seventh. After `maxAttempts`, or below
///   `ByteCapFitter.smallestSide`, the first frame is kept instead, with the reason, when the
///   plan allows it (`Plan.Deviation.animationAsFirstFrame`); else `.cannotFit`.
/// - **Timing, loop count and transparency** go to `GIFEncoder` as decoded: per-frame durations
///   in milliseconds (it rounds to centiseconds, carrying the error), the container's loop
///   count, and alpha (< 128 becomes the transparent index).
extension ImageProcessor {
    /// Sizes tried before the first frame is kept instead.
    static let maxAnimationAttempts = 8
    /// The area factor of a smaller try is at most this (×0.75 of the area a step).
    static let animationShrinkStep = 0.75
    /// How bytes follow area when a palette animation is scaled: bytes ∝ area^0.75. Measured on
    /// the A2 GIFs (Benchmarks/big_gif.py): 0.61 of the area gave 0.79 of the bytes. Dither noise
    /// is put back after the resize, so the bytes fall slower than the pixels.
    static let bytesPerAreaExponent = 0.75
    /// The share of the byte cap a size is chosen to fill: the guess is a guess, and a miss costs
    /// a whole encode.
    static let animationFill = 0.88

    /// The area (a fraction of `size`'s) that brings `bytes` at `size` to `animationFill` of the cap.
    static func areaFactor(bytes: Double, cap: Int) -> Double {
        guard bytes > 0 else { return 1 }
        return min(1, pow(animationFill * Double(cap) / bytes, 1 / bytesPerAreaExponent))
    }

    /// `size`, or smaller when the input's bytes foretell that it would not fit (`predictedArea`);
    /// never under `ByteCapFitter.smallestSide`, where the search would give up at once.
    static func firstSize(
        _ size: Size, _ data: Data, format: MediaFormat, facts: AnimationFacts, cap: Int, _ log: inout ProcessingLog
    ) -> Size {
        guard let area = predictedArea(data, format: format, canvas: facts.canvas, size: size, cap: cap) else {
            return size
        }
        let predicted = TargetSize.shrunk(size, by: area.squareRoot(), aspectOf: facts.canvas)
        guard max(predicted.width, predicted.height) >= ByteCapFitter.smallestSide else { return size }
        log.steps.append(
            "sized \(size.width)x\(size.height) -> \(predicted.width)x\(predicted.height) to fit \(cap) bytes, foretold by the input's \(data.count)"
        )
        return predicted
    }

    /// The first size for a GIF over the cap: `size` (the limits' size) cut so that the input's
    /// bytes, scaled to it, come to `animationFill` of the cap. Nil for anything else (an
    /// animated WebP's bytes say nothing of a GIF's).
    static func predictedArea(_ data: Data, format: MediaFormat, canvas: Size, size: Size, cap: Int) -> Double? {
        guard format == .gif, data.count > cap else { return nil }
        // The input's bytes at the limits' size: bytes fall with area as they would for ours.
        let area = Double(size.width * size.height) / Double(max(1, canvas.width * canvas.height))
        let atSize = Double(data.count) * pow(area, bytesPerAreaExponent)
        let factor = areaFactor(bytes: atSize, cap: cap)
        return factor < 1 ? factor : nil
    }

    /// `data` (a GIF, or an animated WebP) carried out as `plan` says; see the extension's notes.
    func processAnimation(
        _ data: Data, format: MediaFormat, facts: AnimationFacts, plan: Plan, limits: ProcessingLimits
    ) throws(ProcessingError) -> ProcessingResult {
        var log = ProcessingLog()
        log.steps.append("animated \(format.rawValue): \(facts.summary)")
        let thumbSize = limits.thumbnailSize.map { TargetSize.thumbnail(for: facts.canvas, side: $0) }
        switch plan.action {
        case .passThrough, .rename:
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
        case .reencodeAnimation:
            let why = plan.changes.map(\.description).joined(separator: "; ")
            log.steps.append("re-encoding as gif: \(why)")
            return try encodeAnimation(data, format: format, facts: facts, plan: plan, thumbSize: thumbSize, limits, &log)
        case .firstFrame, .fit, .convert, .refuse:
            return try firstFrame(data, format: format, facts: facts, plan: plan, thumbSize: thumbSize, limits, &log)
        }
    }

    // MARK: - Encode

    /// The largest size an animation of `canvas` may be encoded at: within the long side and the
    /// decoded budget (`TargetSize.main`), and a GIF frame within `GIFEncoder.largestFrame`
    /// pixels; each step that shrinks it is logged.
    private static func largestSize(_ canvas: Size, _ limits: ProcessingLimits, _ log: inout ProcessingLog) -> Size {
        let size = TargetSize.main(for: canvas, policy: limits.policy)
        if size != canvas {
            log.steps.append(
                "sized \(canvas.width)x\(canvas.height) -> \(size.width)x\(size.height) for the long side and the decoded budget"
            )
        }
        let framed = TargetSize.withinMemory(size, aspectOf: canvas, budget: GIFEncoder.largestFrame * 4)
        if framed != size {
            log.steps.append(
                "sized \(size.width)x\(size.height) -> \(framed.width)x\(framed.height): a GIF frame has at most \(GIFEncoder.largestFrame) pixels (GIFEncoder.largestFrame)"
            )
        }
        return framed
    }

    /// The size search: encode, and on passing the byte cap, a smaller size (see the notes).
    private func encodeAnimation(
        _ data: Data, format: MediaFormat, facts: AnimationFacts, plan: Plan, thumbSize: Size?,
        _ limits: ProcessingLimits, _ log: inout ProcessingLog
    ) throws(ProcessingError) -> ProcessingResult {
        var size = Self.firstSize(
            Self.largestSize(facts.canvas, limits, &log), data, format: format, facts: facts, cap: limits.byteCap, &log)
        var smallest = Int.max
        let palettes: [(GIFEncoder.Quality, String)] = [
            (.standard, "256 colours"), (.compact, "128 colours"), (.smallest, "64 colours"),
        ]
        var smallestTried = size
        // Kept across the attempts: a retry remaps its frames to the palettes of the one before.
        let kept = GIFPalettes()
        for attempt in 0..<Self.maxAnimationAttempts {
            let (quality, paletteName) = palettes[min(attempt / 3, palettes.count - 1)]
            let outcome = try encodeAttempt(
                data, format: format, facts: facts, size: size, quality: quality, palettes: kept,
                thumbSize: thumbSize, limits)
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
                    "encoded gif \(size.width)x\(size.height), \(frames) frames, \(paletteName) (\(gif.count) bytes; palettes over every attempt: \(kept.quantized) made, \(kept.reused) frames remapped to a kept one)"
                )
                let output = ProcessedImage(
                    data: gif, format: .gif, width: size.width, height: size.height, frames: frames)
                let thumbnail = try thumb.map { thumb throws(ProcessingError) in
                    try encodeThumbnail(
                thumb, icc: nil, within: Size(width: output.width, height: output.height), limits: limits, log: &log)
                }
                return result(output, passthrough: false, thumbnail: thumbnail, facts: facts, log)
            case .overByteLimit(let written, let foretold, let early):
                smallestTried = size
                smallest = min(smallest, Int(foretold))
                let area = min(Self.animationShrinkStep, max(Self.areaFactor(bytes: foretold, cap: limits.byteCap), 0.1))
                let next = TargetSize.shrunk(size, by: area.squareRoot(), aspectOf: facts.canvas)
                log.steps.append(
                    early
                        ? "gif \(size.width)x\(size.height) (\(paletteName)) stopped after \(written) of \(facts.frames) frames: they foretell \(Int(foretold)) bytes, over \(limits.byteCap)"
                        : "gif \(size.width)x\(size.height) (\(paletteName)) passed \(limits.byteCap) bytes after \(written) of \(facts.frames) frames"
                )
                guard max(next.width, next.height) >= ByteCapFitter.smallestSide, next != size else { break }
                size = next
                continue
            }
            break
        }
        guard plan.mayDeviate.contains(.animationAsFirstFrame) else {
            throw .cannotFit(byteCap: limits.byteCap, smallest: smallest)
        }
        return try firstFrameInstead(
            data, format: format, facts: facts, plan: plan, smallestTried: smallestTried, thumbSize: thumbSize, limits, &log)
    }

    /// The first frame as a still where no GIF size fits the byte cap: the deviation the plan
    /// allowed, with a warning that says why.
    private func firstFrameInstead(
        _ data: Data, format: MediaFormat, facts: AnimationFacts, plan: Plan, smallestTried: Size, thumbSize: Size?,
        _ limits: ProcessingLimits, _ log: inout ProcessingLog
    ) throws(ProcessingError) -> ProcessingResult {
        var result = try firstFrame(data, format: format, facts: facts, plan: plan, thumbSize: thumbSize, limits, &log)
        result.deviation = .animationAsFirstFrame
        result.warnings.append(
            "animated \(format.displayName) (\(facts.frames) frames): only the first frame is kept, as \(result.output.format.displayName): no size fits the \(limits.byteCap)-byte cap (the smallest tried, \(smallestTried.width)x\(smallestTried.height), was over it)"
        )
        return result
    }

    /// One encode attempt's result.
    private enum Attempt {
        /// The GIF, its frame count, the thumbnail's pixels (from the first frame) and the codec's warnings.
        case done(Data, frames: Int, thumb: PixelBuffer?, warnings: [String])
        /// The output passed the byte cap while frame `written` (0-based) was added, or the frames
        /// written foretold that it would; `foretold` is the whole animation's bytes at this size.
        case overByteLimit(written: Int, foretold: Double, early: Bool)
    }

    /// The whole animation's bytes, foretold from the output so far: the first frame (the whole
    /// canvas) as it is, each later one (what changed) as the average of those written.
    static func foretoldBytes(first: Int, now: Int, written: Int, frames: Int) -> Double {
        guard written > 1 else { return Double(now) * Double(frames) / Double(max(written, 1)) }
        return Double(first) + Double(now - first) * Double(frames - 1) / Double(written - 1)
    }

    /// Frames written before the output so far is taken to foretell the whole. From then on an
    /// encode stops as soon as its frames foretell any overshoot of the cap: finishing an encode
    /// that will not fit costs the most frames.
    static let framesBeforeForetelling = 4

    /// Decodes every frame, resizes it to `size` and adds it to a `GIFEncoder` capped at the
    /// byte cap: one canvas (the codec's), one resized frame and the encoder's bytes at a time.
    private func encodeAttempt(
        _ data: Data, format: MediaFormat, facts: AnimationFacts, size: Size, quality: GIFEncoder.Quality,
        palettes: GIFPalettes, thumbSize: Size?, _ limits: ProcessingLimits
    ) throws(ProcessingError) -> Attempt {
        try Self.withAnimation(data, format: format, limits: limits) { source throws(ProcessingError) -> Attempt in
            var encoder: GIFEncoder
            do throws(CodecError) {
                encoder = try GIFEncoder(
                    width: size.width, height: size.height, loopCount: source.loopCount, quality: quality,
                    byteLimit: limits.byteCap, palettes: palettes)
            } catch {
                throw .codec(error)
            }
            var written = 0
            var firstBytes = 0
            var thumb: PixelBuffer? = nil
            let frames = max(facts.frames, 1)
            func foretold(_ now: Int, _ flushed: Int) -> Double {
                Self.foretoldBytes(first: firstBytes, now: now, written: flushed, frames: frames)
            }
            while let frame = try source.next() {
                if written == 0, let thumbSize { thumb = resizer.resize(frame.canvas, to: thumbSize) }
                let pixels = resizer.resize(frame.canvas, to: size)
                do throws(CodecError) {
                    try encoder.add(pixels, durationMilliseconds: frame.durationMilliseconds)
                } catch .byteLimitExceeded {
                    // Past the cap inside frame `written`: the frames before it foretell the whole.
                    let simple = Double(limits.byteCap) * Double(frames) / Double(written + 1)
                    let whole = written > 1 ? max(foretold(limits.byteCap, written), simple) : simple
                    return .overByteLimit(written: written, foretold: whole, early: false)
                } catch {
                    throw .codec(error)
                }
                written += 1
                // The encoder holds one frame back: `written - 1` are in its output.
                let flushed = written - 1
                if flushed == 1 { firstBytes = encoder.bytesWritten }
                if flushed >= Self.framesBeforeForetelling, written < frames {
                    let whole = foretold(encoder.bytesWritten, flushed)
                    if whole > Double(limits.byteCap) {
                        return .overByteLimit(written: written, foretold: whole, early: true)
                    }
                }
            }
            guard written > 0 else {
                throw .codec(.corrupt(codec: format.displayName, message: "the animation has no frame that decodes"))
            }
            let gif: Data
            do throws(CodecError) {
                gif = try encoder.finish()
            } catch .byteLimitExceeded {
                return .overByteLimit(written: written - 1, foretold: Double(limits.byteCap) * 1.05, early: false)
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

    /// The first frame as a still, fitted like any still (`ByteCapFitter`: the plan's JPEG or PNG,
    /// or as the pixels need when reached from a GIF no size fits).
    private func firstFrame(
        _ data: Data, format: MediaFormat, facts: AnimationFacts, plan: Plan, thumbSize: Size?,
        _ limits: ProcessingLimits, _ log: inout ProcessingLog
    ) throws(ProcessingError) -> ProcessingResult {
        let canvas = facts.canvas
        let main = plan.target ?? TargetSize.main(for: canvas, policy: limits.policy)
        var inner = log
        var deviation: Plan.Deviation? = nil
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
            // The plan's still format; reached as a deviation from a GIF, the pixels choose.
            var still: MediaFormat = plan.action == .firstFrame ? plan.output ?? .jpeg : (opaque ? .jpeg : .png)
            if still == .png, opaque, plan.action == .firstFrame, plan.mayDeviate.contains(.opaqueAlphaAsJPEG) {
                (still, deviation) = (.jpeg, .opaqueAlphaAsJPEG)
            }
            let fitter = ByteCapFitter(
                upright: canvas, icc: nil, limits: limits, sourceFormat: format, jpegWhenOpaque: false
            ) { size throws(ProcessingError) in self.resizer.resize(first.canvas, to: size) }
            let output = try fitter.fit(pixels, format: still, opaque: opaque, log: &inner)
            let thumb = thumbSize.map { resizer.resize(first.canvas, to: $0) }
            return (output, thumb)
        }
        log = inner
        let thumbnail = try thumb.map { thumb throws(ProcessingError) in
            try encodeThumbnail(
                thumb, icc: nil, within: Size(width: output.width, height: output.height), limits: limits, log: &log)
        }
        var made = result(output, passthrough: false, thumbnail: thumbnail, facts: facts, log)
        made.deviation = deviation
        return made
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
