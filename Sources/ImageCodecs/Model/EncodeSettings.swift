/// JPEG chroma subsampling for the encoder.
///
///     let jpeg = try JPEGCodec.encode(pixels, quality: 90, subsampling: .s444)
public enum ChromaSubsampling: String, Sendable, Hashable, CaseIterable {
    /// 4:4:4: chroma at full resolution; largest files, sharpest colour edges.
    case s444
    /// 4:2:2: chroma halved horizontally.
    case s422
    /// 4:2:0: chroma halved both ways; the usual choice for photos, smallest files.
    case s420
    /// Luma only; colour pixels are converted to grey.
    case gray
}

/// PNG compression effort. libpng's simplified write API has no level setting: `.default` is
/// zlib's default level, `.fast` sets `PNG_IMAGE_FLAG_FAST` (faster, larger files).
///
///     let png = try PNGCodec.encode(pixels, compression: .fast)
public enum PNGCompression: Sendable, Hashable, CaseIterable {
    /// zlib's default compression level: smaller files, slower.
    case `default`
    /// `PNG_IMAGE_FLAG_FAST`: faster encoding, larger files.
    case fast
}
