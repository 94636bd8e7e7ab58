import ImageCodecs

/// Keeps an embedded ICC profile only when it describes the pixels being written.
///
///     let icc = ICCProfileCheck.usable(decoded.iccProfile, for: pixels.layout)  // nil for a CMYK profile on RGB
///
/// A profile that does not match the layout (a CMYK profile on RGB pixels) would make viewers
/// misread the output, so it is dropped. CMYK JPEGs do not reach here with theirs: the codec
/// converts them (to sRGB with lcms2, through the profile or the default CMYK one) and
/// reports no profile. RGB profiles (Display P3 and others) are kept as they are: iOS is
/// colour managed. The data colour space is the 4-byte signature at offset 16 of the 128-byte
/// ICC header.
enum ICCProfileCheck {
    static func colorSpace(_ profile: [UInt8]) -> String? {
        guard profile.count >= 128 else { return nil }
        return String(decoding: profile[16..<20], as: UTF8.self)
    }

    /// `profile` when its colour space matches `layout` (RGB for RGB/RGBA, GRAY for gray).
    static func usable(_ profile: [UInt8]?, for layout: PixelBuffer.Layout) -> [UInt8]? {
        guard let profile, !profile.isEmpty, let space = colorSpace(profile) else { return nil }
        switch layout {
        case .rgb, .rgba: return space == "RGB " ? profile : nil
        case .gray: return space == "GRAY" ? profile : nil
        }
    }
}
