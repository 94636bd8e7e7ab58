/// CMYK to RGB for CMYK and YCCK JPEGs, without colour management: the last resort when lcms2
/// cannot build even the default CMYK profile's transform, and a test reference.
///
///     let rgb = CMYKConversion.toRGB(cmykPixels, width: w, height: h, inverted: true)
///
/// Adobe applications (any file with an APP14 "Adobe" segment) store CMYK inverted
/// (0 = full ink); libjpeg hands the stored values back unchanged. Then
/// `R = C * K / 255`. Without APP14 the values are plain ink amounts: `R = (255 - C) * (255 - K) / 255`.
enum CMYKConversion {
    static func toRGB(_ cmyk: [UInt8], width: Int, height: Int, inverted: Bool) -> PixelBuffer {
        var out = PixelBuffer(width: width, height: height, layout: .rgb)
        let stride = out.stride
        cmyk.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBytes { dst in
                let to = dst.baseAddress!
                for y in 0..<height {
                    convertRow(
                        src.baseAddress! + y * width * 4, into: to + y * stride, width: width, inverted: inverted)
                }
            }
        }
        return out
    }

    /// One row: `width` CMYK pixels at `source` to `width` RGB pixels at `destination`.
    static func convertRow(
        _ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, width: Int, inverted: Bool
    ) {
        for i in 0..<width {
            var c = UInt32(source[i * 4]), m = UInt32(source[i * 4 + 1])
            var y = UInt32(source[i * 4 + 2]), k = UInt32(source[i * 4 + 3])
            if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
            // Rounded c * k / 255.
            destination[i * 3] = UInt8((c * k + 127) / 255)
            destination[i * 3 + 1] = UInt8((m * k + 127) / 255)
            destination[i * 3 + 2] = UInt8((y * k + 127) / 255)
        }
    }
}
