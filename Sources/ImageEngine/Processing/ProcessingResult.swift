import Foundation
import MediaTypes

/// One encoded image: the main output or the thumbnail.
///
///     try result.output.data.write(to: folder.appendingPathComponent("a.\(result.output.format.fileExtension)"))
public struct ProcessedImage: Sendable, Hashable {
    /// The encoded file, ready to write: JPEG, PNG or (for an animation) GIF bytes, or the input
    /// itself on a passthrough.
    public var data: Data
    /// `.jpeg`, `.png` or `.gif` (or the input's format on a passthrough).
    public var format: MediaFormat
    /// Upright width in pixels: orientation already applied, as a viewer shows it.
    public var width: Int
    /// Upright height in pixels.
    public var height: Int
    /// The JPEG quality it was encoded at; nil for PNG and for passthrough.
    public var quality: Int?
    /// Frames in the file: 1 for a still, the frame count of an animated GIF.
    public var frames: Int

    /// An encoded image with its facts; normally made by `ImageProcessor`.
    public init(data: Data, format: MediaFormat, width: Int, height: Int, quality: Int? = nil, frames: Int = 1) {
        self.data = data
        self.format = format
        self.width = width
        self.height = height
        self.quality = quality
        self.frames = frames
    }
}

/// What `ImageProcessor.process` made, and what it did to get there.
///
///     let result = try processor.process(data, sniffed: sniffed, limits: limits)
///     result.passthrough   // false
///     result.steps         // ["decoded at 1/2: 5760x3840 -> 2880x1920", "resized 5760x3840 -> 2048x1365", "encoded jpeg q85"]
public struct ProcessingResult: Sendable {
    /// The image to send: within every limit, upright, JPEG or PNG (or the input unchanged
    /// when `passthrough`).
    public var output: ProcessedImage
    /// True when `output.data` is the input, byte for byte.
    public var passthrough: Bool
    /// A small JPEG (PNG when the image has alpha) fitted in `limits.thumbnailSize`; `nil`
    /// when no thumbnail size was set.
    public var thumbnail: ProcessedImage?
    /// What was done, in order, human readable.
    public var steps: [String]
    /// What the codecs recovered from (lenient mode) and other things worth a look.
    public var warnings: [String]
    /// The stored width in the header, in pixels, before orientation.
    public var sourceWidth: Int
    /// The stored height in the header, in pixels, before orientation.
    public var sourceHeight: Int
    /// The source's size as a viewer shows it: the stored size turned by its orientation (Exif
    /// or XMP), as the engine read it; an animation's canvas as it is.
    public var uprightSourceSize: Size
    /// What the engine did otherwise than planned, one of the plan's `mayDeviate`; nil when it
    /// did as planned.
    public var deviation: Plan.Deviation?

    /// A result with every field given; normally made by `ImageProcessor.process`.
    /// `uprightSourceSize` defaults to the stored size (no orientation).
    public init(
        output: ProcessedImage, passthrough: Bool, thumbnail: ProcessedImage? = nil, steps: [String] = [],
        warnings: [String] = [], sourceWidth: Int, sourceHeight: Int, uprightSourceSize: Size? = nil,
        deviation: Plan.Deviation? = nil
    ) {
        self.output = output
        self.passthrough = passthrough
        self.thumbnail = thumbnail
        self.steps = steps
        self.warnings = warnings
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.uprightSourceSize = uprightSourceSize ?? Size(width: sourceWidth, height: sourceHeight)
        self.deviation = deviation
    }
}
