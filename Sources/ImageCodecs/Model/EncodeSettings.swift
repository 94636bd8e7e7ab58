/// JPEG chroma subsampling for the encoder.
///
///     let jpeg = try JPEGCodec.encode(pixels, quality: 90, subsampling: .s444)
public enum ChromaSubsampling: String, Sendable, Hashable, CaseIterable {
    case s444, s422, s420
    /// Luma only; colour pixels are converted to grey.
    case gray
}

/// PNG compression effort. libpng's simplified write API has no level setting: `.default` is
/// zlib's default level, `.fast` sets `PNG_IMAGE_FLAG_FAST` (faster, larger files).
///
///     let png = try PNGCodec.encode(pixels, compression: .fast)
public enum PNGCompression: Sendable, Hashable, CaseIterable {
    case `default`
    case fast
}
