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
/// Decisions:
/// - **Passthrough**: an accepted format (JPEG, PNG) within the byte cap, the long side and the
///   memory budget, and upright (no Exif orientation other than 1), is returned byte for byte.
///   It is still decoded once, at the thumbnail's scale or the smallest, to prove the data whole
///   (the rows stream into the thumbnail, or are dropped).
///   CMYK/YCCK JPEGs are always re-encoded as RGB (colour handling of Adobe CMYK differs between
///   decoders, and RGB is what every iOS path expects): to sRGB through their ICC profile
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
/// - **Format**: PNG when the pixels have real alpha (an all-255 alpha channel is opaque), PNG for
///   opaque PNG input (alpha dropped) unless PNG cannot fit the byte cap at the target size, then
///   JPEG (keeping resolution matters more on a lock screen than losslessness). JPEG otherwise;
///   WebP, HEIC, HEIF and AVIF are always transcoded (libheif hands out upright pixels: see
///   `orientation(of:info:strict:log:)`).
/// - **Animations** (every GIF, an animated WebP): streamed frame by frame into an animated GIF
///   that fits the byte cap, the decoded budget and the frame and duration caps, or passed
///   through when a GIF already does; the first frame as a still when no GIF can (see
///   `processAnimation` and `AnimationPlan`).
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
    public static let processedFormats: Set<MediaFormat> = ImageCodecs.decodableFormats.union([.gif])

    /// Resizes rows as they leave the decoder (every output).
    let rowResizer = RowResizer()
    /// Resizes a buffer in memory (the thumbnail from the main output).
    let resizer = Resizer()

    /// A processor with empty scratch buffers; they grow with the first images and are reused.
    /// Make one per thread (or per task that runs images one after another).
    public init() {}

    /// `data` fitted to `limits`, with a thumbnail when `limits.thumbnailSize` is set.
    ///
    /// - Parameter sniffed: what `Sniffer.sniff` said about `data`; its format picks the codec and
    ///   its header size is checked against `limits.policy.pixelBudget` first.
    /// - Throws: `.notDecodable` for anything but JPEG, PNG, WebP, GIF, HEIC and AVIF; `.codec` for damaged input
    ///   or a pixel bomb (`.pixelBudgetExceeded`, before any decode); `.cannotFit` when no size
    ///   fits the byte cap.
    /// - Complexity: one decode at reduced scale, one resize per output, a few encodes (and a
    ///   decode per smaller size) when the byte cap bites.
    public func process(_ data: Data, sniffed: SniffedType, limits: ProcessingLimits) throws(ProcessingError)
        -> ProcessingResult
    {
        try Self.validate(limits)
        let format = sniffed.format
        guard Self.processedFormats.contains(format) else { throw .notDecodable(format) }
        if let width = sniffed.width, let height = sniffed.height {
            try Self.checkPixelBudget(width: width, height: height, budget: limits.policy.pixelBudget)
        }
        if format == .gif || (format == .webp && sniffed.isAnimated) {
            return try processAnimation(data, format: format, limits: limits)
        }
        let input = EncodedInput(data, format: format)
        let info: ImageInfo
        do { info = try input.readInfo() } catch { throw .codec(error) }
        try Self.checkPixelBudget(width: info.width, height: info.height, budget: limits.policy.pixelBudget)

        var log = ProcessingLog()
        let orientation = try Self.orientation(of: input, info: info, strict: limits.policy.strict, log: &log)
        let stored = Size(width: info.width, height: info.height)
        let isCMYK = info.colorSpace == "cmyk" || info.colorSpace == "ycck"
        let decision = StillDecision(
            format: format, byteCount: data.count, stored: stored, orientation: orientation, isCMYK: isCMYK,
            limits: limits)
        // Never larger than the attachment: a thumbnail box over the fitted size gets the fitted size.
        let thumbSize = limits.thumbnailSize.map {
            FitBox.fit(TargetSize.thumbnail(for: decision.upright, side: $0), in: decision.mainSize)
        }
        let job = StillJob(
            input: input, info: info, format: format, stored: stored, orientation: orientation, isCMYK: isCMYK,
            upright: decision.upright, mainSize: decision.mainSize, thumbSize: thumbSize, limits: limits)
        if decision.passThrough {
            return try passThrough(data, job, log: &log)
        }
        return try transcode(job, animated: sniffed.isAnimated, sniffedFrames: sniffed.frames, log: &log)
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
    private func transcode(_ job: StillJob, animated: Bool, sniffedFrames: Int?, log: inout ProcessingLog)
        throws(ProcessingError) -> ProcessingResult
    {
        let (input, format, stored, orientation, limits) = (job.input, job.format, job.stored, job.orientation, job.limits)
        let (upright, mainSize) = (job.upright, job.mainSize)
        let cover = Size(
            width: max(mainSize.width, job.thumbSize?.width ?? 0), height: max(mainSize.height, job.thumbSize?.height ?? 0))
        var options = Self.decodeOptions(stored: stored, covering: cover, orientation, limits, powerOfTwoScales: job.isCMYK)
        options.validateAllScans = limits.validateAllScans
        if !animated, let planar = try transcodePlanes(job, options: options, log: &log) { return planar }
        let main = try Self.stream(input, options: options, decodeAhead: limits.decodeAhead) { source throws(CodecError) in
            try rowResizer.resize(source, to: mainSize, orientation: orientation)
        }
        try Self.record(main, stored: stored, format: format, limits: limits, &log)
        if animated || job.info.frames > 1 {
            // An AVIF/HEIF image sequence does not say its frame count in the header read here.
            let frames = max(job.info.frames, sniffedFrames ?? 0)
            let count = frames > 1 ? "\(frames) frames" : "an image sequence"
            log.warnings.append("animated \(format.displayName) (\(count)): only the first frame is kept")
        }
        let opaque = main.value.opaque
        if main.layout == .rgba, opaque {
            log.steps.append("alpha channel is fully opaque: treated as opaque")
        }
        if orientation != .up {
            log.steps.append("oriented upright (\(log.orientationSource) \(orientation.rawValue))")
        }
        let mainPixels = main.value.pixels
        if mainSize != upright {
            log.steps.append("resized \(upright.width)x\(upright.height) -> \(mainSize.width)x\(mainSize.height)")
        }
        let target: MediaFormat = !opaque ? .png : (format == .png ? .png : .jpeg)
        let icc = Self.profile(main.iccProfile, for: main.layout, &log)
        // A smaller size is resampled from a fresh decode at the same scale, never from a held
        // frame: the same pixels the first resize saw.
        let fitter = ByteCapFitter(upright: upright, icc: icc, limits: limits, sourceFormat: format) {
            size throws(ProcessingError) in
            try Self.stream(input, options: options, decodeAhead: limits.decodeAhead) { source throws(CodecError) in
                try self.rowResizer.resize(source, to: size, orientation: orientation).pixels
            }.value
        }
        let output = try fitter.fit(mainPixels, format: target, opaque: opaque, log: &log)

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
            sourceWidth: stored.width, sourceHeight: stored.height, uprightSourceSize: upright)
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
    let limits: ProcessingLimits
}

/// Steps and warnings gathered during one `process` call.
struct ProcessingLog {
    var steps: [String] = []
    var warnings: [String] = []
    /// Where the orientation came from, for the step that applies it: "EXIF" or "XMP".
    var orientationSource = "EXIF"
}

@available(*, unavailable, message: "an ImageProcessor reuses scratch buffers; keep one per thread")
extension ImageProcessor: Sendable {}
