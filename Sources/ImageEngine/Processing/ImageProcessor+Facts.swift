import Foundation
import ImageCodecs
import MediaTypes

extension ImageProcessor {
    /// What the codec header and metadata of an image say, before any pixel: its stored size
    /// (checked against the pixel budget first), orientation and colour space, or for an
    /// animation (a GIF, an animated WebP) its container's canvas, frames and duration. The
    /// planner's `MediaFacts.image`.
    ///
    ///     var facts = MediaFacts(bytes: Array(data))
    ///     facts.image = try ImageProcessor.imageFacts(data, sniffed: facts.sniffed, limits: ProcessingLimits())
    ///     facts.image?.orientation   // .right for a phone photo held upright
    ///
    /// - Throws: `.notDecodable` for a format the engine does not take; `.codec` for a header the
    ///   codec refuses or one over the pixel budget; `.exif` for a malformed Exif block under a
    ///   strict policy (leniently it is a note, and the image is upright).
    public static func imageFacts(_ data: Data, sniffed: SniffedType, limits: ProcessingLimits)
        throws(ProcessingError) -> ImageFacts
    {
        let format = sniffed.format
        guard processedFormats.contains(format) else { throw .notDecodable(format) }
        if let width = sniffed.width, let height = sniffed.height {
            try checkPixelBudget(width: width, height: height, budget: limits.policy.pixelBudget)
        }
        if Planner.isAnimation(sniffed) {
            let animation = try animationFacts(data, format: format, limits: limits)
            return ImageFacts(stored: animation.canvas, animation: animation)
        }
        let input = EncodedInput(data, format: format)
        let info: ImageInfo
        do { info = try input.readInfo() } catch { throw .codec(error) }
        try checkPixelBudget(width: info.width, height: info.height, budget: limits.policy.pixelBudget)
        return try stillFacts(input, info: info, limits: limits)
    }

    /// A still's facts from its codec header (`info`) and metadata.
    static func stillFacts(_ input: EncodedInput, info: ImageInfo, limits: ProcessingLimits)
        throws(ProcessingError) -> ImageFacts
    {
        var log = ProcessingLog()
        let orientation = try orientation(of: input, info: info, strict: limits.policy.strict, log: &log)
        return ImageFacts(
            stored: Size(width: info.width, height: info.height), orientation: orientation,
            orientationFromXMP: log.orientationFromXMP, isCMYK: info.colorSpace == "cmyk" || info.colorSpace == "ycck",
            notes: log.warnings)
    }

    /// Proves an image's data whole without fitting it, under the same damage policy as
    /// `process`: a still decoded once at the smallest scale (a JPEG at 1/8 still reads every
    /// entropy-coded bit), its rows streamed through one row buffer and dropped; an animation's
    /// every frame decoded and dropped, as its passthrough in `process` does. `verify` judges an
    /// image with this, so it refuses the same bytes `prepare` does, for the same reason.
    ///
    ///     let warnings = try ImageProcessor.validate(data, facts: facts, limits: ProcessingLimits())
    ///
    /// - Returns: what the codec recovered from or noted (a damaged image accepted under
    ///   `acceptDamaged` says so here).
    /// - Throws: `.codec`, `.damaged` (damage, unless `acceptDamaged`), `.exif` (strict).
    public static func validate(_ data: Data, facts: MediaFacts, limits: ProcessingLimits)
        throws(ProcessingError) -> [String]
    {
        let format = facts.format
        guard processedFormats.contains(format) else { throw .notDecodable(format) }
        if Planner.isAnimation(facts.sniffed) {
            return try validateAnimation(data, format: format, limits: limits)
        }
        let input = EncodedInput(data, format: format)
        let stored: Size
        if let image = facts.image {
            stored = image.stored
        } else {
            let info: ImageInfo
            do { info = try input.readInfo() } catch { throw .codec(error) }
            stored = Size(width: info.width, height: info.height)
        }
        var log = ProcessingLog()
        try decodeToValidate(input, stored: stored, facts.image?.orientation ?? .up, limits, &log)
        return log.warnings
    }

    /// Every frame of an animation decoded once and dropped.
    static func validateAnimation(_ data: Data, format: MediaFormat, limits: ProcessingLimits)
        throws(ProcessingError) -> [String]
    {
        try withAnimation(data, format: format, limits: limits) { source throws(ProcessingError) in
            var decoded = 0
            while try source.next() != nil { decoded += 1 }
            guard decoded > 0 else {
                throw .codec(.corrupt(codec: format.displayName, message: "the animation has no frame that decodes"))
            }
            return source.warnings.map { "\(format.rawValue) decode: \($0)" }
        }
    }
}
