import Foundation
import ImageCodecs
import MediaTypes

/// What `ImageProcessor.inspect` found: the header, the orientation, and what the decode said.
public struct ImageInspection: Sendable {
    /// Width in pixels as stored in the header, before `orientation` is applied (a portrait
    /// phone photo stored sideways reports its landscape width).
    public var width: Int
    /// Height in pixels as stored in the header, before `orientation` is applied.
    public var height: Int
    /// Frames in the file: 1 for a still image, the frame count of an animated WebP, GIF or APNG.
    public var frames: Int
    /// JPEG colour space from the header ("ycbcr", "gray", "cmyk", "ycck", "rgb"); `nil` for
    /// PNG and WebP.
    public var colorSpace: String?
    /// How the stored pixels must be turned to stand upright, from Exif (or XMP for PNG and
    /// WebP); `.up` when there is no such metadata, or when it is malformed in lenient mode.
    public var orientation: Orientation
    /// Codec warnings and notes (a damaged image accepted under `acceptDamaged` says so here).
    public var warnings: [String]
}

extension ImageProcessor {
    /// Proves an image usable without fitting it: the pixel budget on the header, the
    /// orientation metadata, and one decode at the smallest scale under the same damage policy
    /// as `process` (a JPEG at 1/8 still reads every entropy-coded bit), its rows streamed
    /// through one row buffer and dropped. A GIF has every frame decoded and dropped (its
    /// canvas checked against the pixel budget first), as a GIF passthrough in `process` does.
    ///
    ///     let inspection = try ImageProcessor.inspect(data, sniffed: try Sniffer.sniff(data), limits: ProcessingLimits())
    ///     inspection.orientation   // .right for a phone photo held upright
    ///
    /// `verify` judges an image with this; `process` makes the same checks on its way to the
    /// output, so both refuse the same bytes for the same reason.
    ///
    /// - Parameter decode: false checks the header and metadata only (no damage check).
    /// - Throws: the errors of `process` that do not depend on the output size: `.notDecodable`,
    ///   `.codec` (damaged header, unsupported variant, pixel budget), `.exif` (strict),
    ///   `.damaged`.
    public static func inspect(_ data: Data, sniffed: SniffedType, limits: ProcessingLimits, decode: Bool = true)
        throws(ProcessingError) -> ImageInspection
    {
        let format = sniffed.format
        guard processedFormats.contains(format) else { throw .notDecodable(format) }
        if let width = sniffed.width, let height = sniffed.height {
            try checkPixelBudget(width: width, height: height, budget: limits.policy.pixelBudget)
        }
        // An animation (a GIF, an animated WebP) is read as the engine reads it: its canvas, no
        // orientation, every frame decoded.
        if format == .gif || (format == .webp && sniffed.isAnimated) {
            return try inspectAnimation(data, format: format, limits: limits, decode: decode)
        }
        let input = EncodedInput(data, format: format)
        let info: ImageInfo
        do { info = try input.readInfo() } catch { throw .codec(error) }
        try checkPixelBudget(width: info.width, height: info.height, budget: limits.policy.pixelBudget)
        var log = ProcessingLog()
        let orientation = try orientation(of: input, info: info, strict: limits.policy.strict, log: &log)
        if decode {
            try decodeToValidate(input, stored: Size(width: info.width, height: info.height), orientation, limits, &log)
        }
        return ImageInspection(
            width: info.width, height: info.height, frames: info.frames, colorSpace: info.colorSpace,
            orientation: orientation, warnings: log.warnings)
    }
}
