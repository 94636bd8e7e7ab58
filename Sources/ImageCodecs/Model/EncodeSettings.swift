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

/// PNG compression effort (`PNGCodec.encode`: rows filtered by CPNGShim, deflated by ISA-L or libdeflate).
///
///     let png = try PNGCodec.encode(pixels, compression: .fast)
public enum PNGCompression: Sendable, Hashable, CaseIterable {
    /// Each row's filter by libpng's heuristic (least sum of magnitudes), ISA-L's level 1 over a
    /// megapixel and libdeflate's level 6 up to it: smaller files.
    case `default`
    /// The Up filter on every row, ISA-L's level 1: faster, larger files.
    case fast
}
