/// Why a codec could not read or write an image. One enum for every codec in this target.
///
///     do { _ = try JPEGCodec.decode(data, options: .init()) }
///     catch .corrupt(let codec, let message) { print("\(codec): \(message)") }
///
/// `codec` names the library that spoke ("libjpeg-turbo", "libpng", "libwebp"); `message` is
/// that library's own words, copied before its handle was freed.
public enum CodecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are damaged or truncated.
    case corrupt(codec: String, message: String)
    /// Well-formed, but a variant this build cannot decode (12-bit or lossless JPEG, a format
    /// with no codec here).
    case unsupported(codec: String, message: String)
    /// The header promises more pixels than `DecodeOptions.pixelBudget`; nothing was allocated.
    case pixelBudgetExceeded(width: Int, height: Int, budget: Int)
    /// Zero, negative or overflowing dimensions, in a header or in pixels handed to an encoder.
    case invalidDimensions(width: Int, height: Int)
    /// The encoder refused the pixels.
    case encodeFailed(codec: String, message: String)
    /// The encoder's output passed the byte limit it was given; writing stopped there.
    case byteLimitExceeded(codec: String, limit: Int)

    public var description: String {
        switch self {
        case .corrupt(let codec, let message):
            "\(codec) could not decode the image: \(message). The file is damaged or truncated; fetch it again or drop it."
        case .unsupported(let codec, let message):
            "\(codec) cannot decode this variant: \(message). Re-encode the image as 8-bit baseline JPEG, PNG or WebP."
        case .pixelBudgetExceeded(let width, let height, let budget):
            "image is \(width)x\(height) (\(Double(width) * Double(height) / 1e6) MP), over the budget of \(budget) pixels; it was not decoded. Raise DecodeOptions.pixelBudget or serve a smaller image."
        case .invalidDimensions(let width, let height):
            "image dimensions \(width)x\(height) are not usable; width and height must be positive."
        case .encodeFailed(let codec, let message):
            "\(codec) could not encode the image: \(message)."
        case .byteLimitExceeded(let codec, let limit):
            "\(codec) output passed the limit of \(limit) bytes; encoding stopped. Scale the frames down, use fewer colours or frames, or raise the limit."
        }
    }
}
