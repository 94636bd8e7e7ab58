internal import CDefaultCMYKProfile

/// The CMYK ICC profile for CMYK and YCCK JPEGs that carry none (or one lcms2 cannot use):
/// "Chemical proof" by Graeme W. Gill, public domain, 227,452 bytes, compiled in
/// (`Sources/CDefaultCMYKProfile`, licence beside it).
///
///     let transform = CMYKTransformCache.shared.transform(for: DefaultCMYKProfile.bytes, inverted: true)
///
/// - **Why this profile**: it is libvips' built-in `cmyk` profile (libvips and sharp fall back
///   to it), so an unprofiled CMYK file comes out as the tools users compare us with render it;
///   it is public domain, so it can ship inside the binary with no licence to carry; and it is
///   an ArgyllCMS profile of a real press proof, where a formula-made profile would be the naive
///   conversion in a new dress. Debian's `icc-profiles-free` ships no CMYK profile (the
///   basICColor ones were removed from the DFSG package). Only the characterization data (734 KB of
///   measurement text no transform reads) is left out of libvips' 961 KB file.
/// - **Intent**: relative colorimetric with black point compensation (`rendering`). The
///   profile's perceptual table is its colorimetric one (A2B0 and A2B1 are the same bytes), so
///   "perceptual" would only add lcms2's own black point handling, which changed between
///   versions: full ink comes out (0, 0, 24) with Debian's lcms2 2.14 and (0, 0, 0) with 2.19.
///   Relative + BPC gives (0, 0, 20) on both, and the same pixels as Pillow ImageCms with
///   `Flags.BLACKPOINTCOMPENSATION`. libvips' own fallback is relative colorimetric without
///   BPC, which leaves full ink a blue-grey (33, 33, 44) because the proof's black (its `bkpt` tag, L* 13.5) is
///   kept instead of mapped onto sRGB black; with BPC the shadows keep their depth.
///   Measured on the corpus photo whose SWOP profile is stripped (`jpeg/misc/sharp_cmyk_no_profile.jpg`),
///   against the SWOP rendering of the same scan data: luma SSIM 0.992 (relative without BPC
///   0.977, the naive formula 0.982).
/// - **Loading**: the bytes are copied out of the C array once, on first use; the transform
///   is built once and kept by `CMYKTransformCache` like any embedded profile's.
package enum DefaultCMYKProfile {
    /// The profile's bytes.
    static let bytes: [UInt8] = Array(
        UnsafeBufferPointer(start: pa_default_cmyk_profile(), count: Int(pa_default_cmyk_profile_size())))

    /// Its description tag, for notes and warnings.
    static let name = "Chemical proof"

    /// The intent and flags its transforms use.
    static let rendering = CMYKColorTransform.Rendering.relativeWithBlackPointCompensation
}

extension DefaultCMYKProfile {
    /// The sRGB pixels (3 bytes each) that a decode of a CMYK JPEG without a profile gives for
    /// `cmyk` (4 bytes a pixel, stored as Adobe writes it when `inverted`): the reference for
    /// tests and the engine fuzzer, which write such files. Nil when the profile is unusable.
    ///
    ///     let rgb = DefaultCMYKProfile.sRGB(fromCMYK: [0, 0, 0, 255], pixels: 1, inverted: true)
    package static func sRGB(fromCMYK cmyk: [UInt8], pixels: Int, inverted: Bool) -> [UInt8]? {
        guard pixels > 0, cmyk.count >= pixels * 4,
            case .success(let transform) = CMYKTransformCache.shared.transform(
                for: bytes, inverted: inverted, rendering: rendering)
        else { return nil }
        var rgb = [UInt8](repeating: 0, count: pixels * 3)
        cmyk.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { destination in
                transform.convert(
                    source.baseAddress!, stride: pixels * 4, into: destination.baseAddress!, stride: pixels * 3,
                    width: pixels, rows: 1)
            }
        }
        return rgb
    }
}
