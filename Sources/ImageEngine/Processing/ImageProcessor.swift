import Foundation
import ImageCodecs
import MediaTypes

/// Fits an image to the limits in one call: passthrough when it already fits, otherwise one
/// shrink-on-load decode whose rows stream through a fused orientation + Lanczos3 resize
/// (`RowResizer`) into the output-sized frame, and an encode searched down to the byte cap.
/// An optional thumbnail comes from the main output.
///
///     let processor = ImageProcessor()                 // one per worker thread
///     let sniffed = try Sniffer.sniff(data)
///     let result = try processor.process(data, sniffed: sniffed, limits: ProcessingLimits(thumbnailSize: 256))
///     result.output.format   // .jpeg
///     result.steps           // ["decoded at 1/2: 5760x3840 -> 2880x1920", "resized 5760x3840 -> 2048x1365", ...]
///
/// What is done is the plan's (`Planner.plan`, from the file's facts): the engine carries it out
/// and decides nothing but how. It may report one deviation the plan allowed
/// (`Plan.mayDeviate`: alpha found opaque, a PNG that fits only as JPEG, an animation that fits
/// only as its first frame), and nothing else.
///
/// How:
/// - **Passthrough** (`pass-through`, `rename`): the bytes are returned as they are, still decoded
///   once, at the thumbnail's scale or the smallest, to prove the data whole (the rows stream into
///   the thumbnail, or are dropped).
///   CMYK/YCCK JPEGs are planned for re-encoding as RGB (colour handling of Adobe CMYK differs
///   between decoders, and RGB is what every iOS path expects): to sRGB through their ICC profile
///   (lcms2) when they embed a usable one, through the default CMYK profile otherwise
///   (libvips' "Chemical proof"); the step says which.
///   RGB profiles (Display P3 and others) are kept, not converted: iOS is colour managed.
/// - **Damage**: a decode whose codec reports damaged data (`ImageRowSource.damage`, complete
///   once every row is read) throws `.damaged`, passthrough or not, unless `limits.policy.acceptDamaged`;
///   then it is a warning.
/// - **Memory**: no frame larger than the output is held (the decoder's own working memory
///   aside: see `workingMemory`). The output frame is: the byte-cap search re-encodes it, and
///   the encoders take it whole, which is bounded by the output size.
/// - **Decode once**, at the smallest codec scale covering the larger of the two outputs, in
///   stored orientation (a 90° orientation swaps the box).
/// - **JPEG to JPEG in YCbCr**: a three-component YCbCr JPEG whose output is a JPEG is resized as
///   its luma and 4:2:0 chroma planes, with no RGB round trip (`transcodePlanes`), when that
///   holds no more memory than the RGB route and the decode scale is above 1/4; the step
///   "resampled as YCbCr 4:2:0 planes" says so. Over the byte cap at `quality` it falls back
///   to the RGB route's search.
/// - **Thumbnail source**: the main output's upright pixels (before any byte-cap shrink) when they
///   cover the thumbnail, because they are smaller than the decode and already upright; otherwise
///   a second streamed decode at the same scale. On a passthrough the decode is made at the
///   thumbnail's own scale.
/// - **Format**: the plan's; an image planned as PNG for its declared alpha whose pixels are all
///   opaque becomes JPEG, and an opaque one planned as PNG that no PNG fits under the byte cap at
///   its size becomes JPEG (keeping resolution matters more on a lock screen than losslessness),
///   each when the plan allows it. libheif hands out upright pixels: see
///   `orientation(of:info:strict:log:)`.
/// - **Animations** (every GIF, an animated WebP): streamed frame by frame into an animated GIF
///   that fits the byte cap, passed through, or cut to the first frame, as planned; the first
///   frame as a still when no GIF size fits (see `processAnimation`).
/// - **Byte cap**: JPEG at `quality`; over the cap, a binary search down to `qualityFloor`; still
///   over, the size shrinks (by the square root of the overshoot, at most ×0.8 a step; each
///   smaller size streamed from a fresh decode) and the search runs again. PNG with alpha only
///   shrinks.
///
/// An instance owns a `RowResizer`, a `Resizer` and their scratch buffers, so it is **not
/// thread-safe**.
public final class ImageProcessor {
    /// The formats `process` takes: the still codecs' (`ImageCodecs.decodableFormats`: JPEG,
    /// PNG, WebP) and GIF, which goes through the animation path with animated WebP.
    public static let processedFormats: Set<MediaFormat> = Planner.processedFormats

    /// Resizes rows as they leave the decoder (every output).
    let rowResizer = RowResizer()
    /// Resizes a buffer in memory (the thumbnail from the main output).
    let resizer = Resizer()

    /// A processor with empty scratch buffers; they grow with the first images and are reused.
    /// Make one per thread (or per task that runs images one after another).
    public init() {}

    /// `data` planned and fitted to `limits`, with a thumbnail when `limits.thumbnailSize` is set:
    /// the facts read (`imageFacts`), `Planner.plan` under `limits.policy`, then the plan carried
    /// out (`process(_:facts:plan:limits:)`). For callers that have no facts of their own (tools,
    /// benchmarks); the per-item path reads its facts once and plans once.
    ///
    /// - Parameter sniffed: what `Sniffer.sniff` said about `data`; its format picks the codec and
    ///   its header size is checked against `limits.policy.pixelBudget` first.
    /// - Throws: `.notDecodable` for anything but JPEG, PNG, WebP, GIF, HEIC, HEIF and AVIF;
    ///   `.codec` for damaged input or a pixel bomb (`.pixelBudgetExceeded`, before any decode);
    ///   `.refused` when the plan refuses it; `.cannotFit` when no size fits the byte cap.
    /// - Complexity: one decode at reduced scale, one resize per output, a few encodes (and a
    ///   decode per smaller size) when the byte cap bites.
    public func process(_ data: Data, sniffed: SniffedType, limits: ProcessingLimits) throws(ProcessingError)
        -> ProcessingResult
    {
        try Self.validate(limits)
        guard Self.processedFormats.contains(sniffed.format) else { throw .notDecodable(sniffed.format) }
        var facts = MediaFacts(sniffed: sniffed, byteCount: data.count)
        facts.image = try Self.imageFacts(data, sniffed: sniffed, limits: limits)
        let plan = Planner.plan(facts, policy: limits.policy)
        if let refusal = plan.refusal { throw .refused(refusal) }
        return try process(data, facts: facts, plan: plan, limits: limits)
    }

    /// Carries out `plan` (from `Planner.plan` over `facts`) on `data`: the bytes kept and
    /// validated, a still fitted to `plan.target` as `plan.output`, an animation re-encoded or cut
    /// to its first frame; a thumbnail when `limits.thumbnailSize` is set.
    ///
    /// - Returns: the output, and the deviation from the plan it took, one of `plan.mayDeviate`.
    /// - Throws: `.notDecodable` for a format the engine does not take or a refusing plan; what
    ///   the decode finds (`.codec`, `.damaged`, `.exif`), `.cannotFit` when no size fits.
    public func process(_ data: Data, facts: MediaFacts, plan: Plan, limits: ProcessingLimits)
        throws(ProcessingError) -> ProcessingResult
    {
        try Self.validate(limits)
        let format = facts.format
        if let refusal = plan.refusal { throw .refused(refusal) }
        guard Self.processedFormats.contains(format) else { throw .notDecodable(format) }
        if Planner.isAnimation(facts.sniffed) {
            let animation: AnimationFacts
            if let known = facts.image?.animation {
                animation = known
            } else {
                animation = try Self.animationFacts(data, format: format, limits: limits)
            }
            return try processAnimation(data, format: format, facts: animation, plan: plan, limits: limits)
        }
        let input = EncodedInput(data, format: format)
        let info: ImageInfo
        do { info = try input.readInfo() } catch { throw .codec(error) }
        try Self.checkPixelBudget(width: info.width, height: info.height, budget: limits.policy.pixelBudget)

        var log = ProcessingLog()
        let image: ImageFacts
        if let known = facts.image { image = known } else { image = try Self.stillFacts(input, info: info, limits: limits) }
        log.warnings += image.notes
        log.orientationFromXMP = image.orientationFromXMP
        let stored = Size(width: info.width, height: info.height)
        let upright = image.orientation.swapsDimensions ? Size(width: stored.height, height: stored.width) : stored
        let mainSize = plan.target ?? upright
        // Never larger than the attachment: a thumbnail box over the fitted size gets the fitted size.
        let thumbSize = limits.thumbnailSize.map {
            FitBox.fit(TargetSize.thumbnail(for: upright, side: $0), in: mainSize)
        }
        let job = StillJob(
            input: input, info: info, format: format, stored: stored, orientation: image.orientation,
            isCMYK: image.isCMYK, upright: upright, mainSize: mainSize, thumbSize: thumbSize, plan: plan, limits: limits)
        if plan.action.keepsBytes {
            return try passThrough(data, job, log: &log)
        }
        return try transcode(job, log: &log)
    }

    /// The bytes written as they are, once decoded: at the thumbnail's scale when there is one
    /// (its rows stream into the thumbnail), else at the smallest, rows dropped.
    private func passThrough(_ data: Data, _ job: StillJob, log: inout ProcessingLog) throws(ProcessingError)
        -> ProcessingResult
    {
        let (upright, stored, limits) = (job.upright, job.stored, job.limits)
        log.steps.append(
            "passed through: \(job.format.rawValue) \(upright.width)x\(upright.height), \(data.count) bytes, within every limit"
        )
        var thumbnail: ProcessedImage? = nil
        if let thumbSize = job.thumbSize {
            let options = Self.decodeOptions(stored: stored, covering: thumbSize, job.orientation, limits)
            let decode = try Self.stream(job.input, options: options, decodeAhead: limits.decodeAhead) {
                source throws(CodecError) in
                try rowResizer.resize(source, to: thumbSize, orientation: job.orientation).pixels
            }
            try Self.record(decode, stored: stored, format: job.format, limits: limits, &log)
            let icc = Self.profile(decode.iccProfile, for: decode.layout, &log)
            thumbnail = try encodeThumbnail(decode.value, icc: icc, within: upright, limits: limits, log: &log)
        } else {
            try Self.decodeToValidate(job.input, stored: stored, job.orientation, limits, &log)
            log.steps[log.steps.count - 1] += " to validate"
        }
        let output = ProcessedImage(data: data, format: job.format, width: upright.width, height: upright.height)
        return ProcessingResult(
            output: output, passthrough: true, thumbnail: thumbnail, steps: log.steps, warnings: log.warnings,
            sourceWidth: stored.width, sourceHeight: stored.height, uprightSourceSize: upright)
    }

    /// The image decoded (at the smallest scale covering the output and the thumbnail), turned
    /// upright, resized and encoded as JPEG (opaque) or PNG (alpha, or a PNG source), under the
    /// byte cap; the thumbnail resampled from the output's pixels.
    private func transcode(_ job: StillJob, log: inout ProcessingLog) throws(ProcessingError) -> ProcessingResult {
        let (input, format, stored, orientation, limits) = (job.input, job.format, job.stored, job.orientation, job.limits)
        let (upright, mainSize) = (job.upright, job.mainSize)
        let cover = Size(
            width: max(mainSize.width, job.thumbSize?.width ?? 0), height: max(mainSize.height, job.thumbSize?.height ?? 0))
        var options = Self.decodeOptions(stored: stored, covering: cover, orientation, limits, powerOfTwoScales: job.isCMYK)
        options.validateAllScans = limits.validateAllScans
        let sequence = job.info.frames > 1 || job.plan.notes.contains { if case .firstFrameOnly = $0 { true } else { false } }
        if !sequence, let planar = try transcodePlanes(job, options: options, log: &log) { return planar }
        let main = try Self.stream(input, options: options, decodeAhead: limits.decodeAhead) { source throws(CodecError) in
            try rowResizer.resize(source, to: mainSize, orientation: orientation)
        }
        try Self.record(main, stored: stored, format: format, limits: limits, &log)
        if job.info.frames > 1, !sequence {
            // A sequence the sniffed header did not show (the plan's note says it otherwise).
            log.warnings.append(Plan.Note.firstFrameOnly(format, frames: job.info.frames).description)
        }
        let opaque = main.value.opaque
        if main.layout == .rgba, opaque {
            log.steps.append("alpha channel is fully opaque: treated as opaque")
        }
        if orientation != .up {
            log.steps.append("oriented upright (\(log.orientationFromXMP ? "XMP" : "EXIF") \(orientation.rawValue))")
        }
        let mainPixels = main.value.pixels
        if mainSize != upright {
            log.steps.append("resized \(upright.width)x\(upright.height) -> \(mainSize.width)x\(mainSize.height)")
        }
        var target = job.plan.output ?? .jpeg
        var deviation: Plan.Deviation? = nil
        if target == .png, opaque, format != .png, job.plan.mayDeviate.contains(.opaqueAlphaAsJPEG) {
            (target, deviation) = (.jpeg, .opaqueAlphaAsJPEG)
        }
        let icc = Self.profile(main.iccProfile, for: main.layout, &log)
        // A smaller size is resampled from a fresh decode at the same scale, never from a held
        // frame: the same pixels the first resize saw.
        let fitter = ByteCapFitter(
            upright: upright, icc: icc, limits: limits, sourceFormat: format,
            jpegWhenOpaque: job.plan.mayDeviate.contains(.pngOverCapAsJPEG)
        ) {
            size throws(ProcessingError) in
            try Self.stream(input, options: options, decodeAhead: limits.decodeAhead) { source throws(CodecError) in
                try self.rowResizer.resize(source, to: size, orientation: orientation).pixels
            }.value
        }
        let output = try fitter.fit(mainPixels, format: target, opaque: opaque, log: &log)
        if output.format != target { deviation = .pngOverCapAsJPEG }

        var thumbnail: ProcessedImage? = nil
        if let thumbSize = job.thumbSize {
            // `thumbSize` is within `mainSize`, so the main output's pixels cover it.
            let thumb = resizer.resize(mainPixels, to: thumbSize)
            thumbnail = try encodeThumbnail(
                thumb, icc: icc, within: Size(width: output.width, height: output.height), limits: limits, log: &log)
            log.steps[log.steps.count - 1] += " (from the main output)"
        }
        return ProcessingResult(
            output: output, passthrough: false, thumbnail: thumbnail, steps: log.steps, warnings: log.warnings,
            sourceWidth: stored.width, sourceHeight: stored.height, uprightSourceSize: upright, deviation: deviation)
    }
}

/// What `process` knows of a still image once its header is read and the plan made.
struct StillJob {
    let input: EncodedInput
    let info: ImageInfo
    let format: MediaFormat
    /// The stored size, before the orientation turns it.
    let stored: Size
    let orientation: Orientation
    /// CMYK or YCCK JPEG (converted through the colour profile; power-of-two scales only).
    let isCMYK: Bool
    /// The stored size turned upright.
    let upright: Size
    /// The size the attachment is written at.
    let mainSize: Size
    /// The thumbnail's size, within `mainSize`; nil for none.
    let thumbSize: Size?
    /// What to do: the output format, and what may deviate from it.
    let plan: Plan
    let limits: ProcessingLimits
}

/// Steps and warnings gathered during one `process` call.
struct ProcessingLog {
    var steps: [String] = []
    var warnings: [String] = []
    /// The orientation came from XMP rather than Exif, as the step that applies it says.
    var orientationFromXMP = false
}

@available(*, unavailable, message: "an ImageProcessor reuses scratch buffers; keep one per thread")
extension ImageProcessor: Sendable {}
