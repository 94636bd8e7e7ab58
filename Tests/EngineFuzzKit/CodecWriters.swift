import CTurboJPEG
import CWebPMux
import Foundation
import ImageCodecs

/// JPEG through TurboJPEG (baseline or progressive; RGB, grey, or CMYK as Adobe writes it) with
/// an Exif orientation, and WebP through libwebp (still: lossy or lossless; animated:
/// WebPAnimEncoder). The same libraries the project decodes with, called directly because the
/// project has no CMYK, Exif or WebP writer of its own.
enum CodecWriters {
    enum Failure: Error, CustomStringConvertible {
        case encoder(String)
        var description: String {
            switch self {
            case .encoder(let s): s
            }
        }
    }

    /// RGBA pixels as the CMYK the JPEG writer stores (Adobe's inverted form: R = C * K / 255),
    /// 4 bytes a pixel.
    public static func adobeCMYK(_ rgba: [UInt8], pixels: Int) -> [UInt8] {
        var cmyk = [UInt8](repeating: 0, count: pixels * 4)
        for p in 0..<pixels {
            let r = Int(rgba[p * 4]), g = Int(rgba[p * 4 + 1]), b = Int(rgba[p * 4 + 2])
            let k = max(r, g, b)
            if k > 0 {
                cmyk[p * 4] = UInt8((r * 255 + k / 2) / k)
                cmyk[p * 4 + 1] = UInt8((g * 255 + k / 2) / k)
                cmyk[p * 4 + 2] = UInt8((b * 255 + k / 2) / k)
            }
            cmyk[p * 4 + 3] = UInt8(k)
        }
        return cmyk
    }

    /// What a CMYK JPEG written from `upright` shows once decoded: its CMYK through the default
    /// CMYK profile the decoder applies to a file without one (the profile's own conversion is
    /// checked against Pillow ImageCms in CMYKColorTests; here it is the reference, so the rest of
    /// the engine is judged on top of it).
    public static func cmykReference(_ upright: PixelBuffer) throws -> PixelBuffer {
        let pixels = upright.width * upright.height
        var rgba = [UInt8](repeating: 255, count: pixels * 4)
        for p in 0..<pixels { for c in 0..<3 { rgba[p * 4 + c] = upright.bytes[p * upright.layout.channels + c] } }
        guard let rgb = DefaultCMYKProfile.sRGB(fromCMYK: adobeCMYK(rgba, pixels: pixels), pixels: pixels, inverted: true)
        else { throw Failure.encoder("the default CMYK profile is unusable") }
        var out = PixelBuffer(width: upright.width, height: upright.height, layout: .rgba)
        for p in 0..<pixels {
            for c in 0..<3 { out.bytes[p * 4 + c] = rgb[p * 3 + c] }
            out.bytes[p * 4 + 3] = 255
        }
        return out
    }

    /// `upright` stored turned so that Exif `orientation` turns it back, as a JPEG.
    static func jpeg(
        _ upright: PixelBuffer, orientation: Int, quality: Int, progressive: Bool, cmyk: Bool, gray: Bool,
        subsampling: Int
    ) throws -> Data {
        let stored = Orientations.stored(upright, orientation: orientation)
        let w = stored.width, h = stored.height
        var source: [UInt8]
        let format: TJPF
        var sampling: TJSAMP = [TJSAMP_444, TJSAMP_422, TJSAMP_420][subsampling % 3]
        if cmyk {
            source = adobeCMYK(stored.bytes, pixels: w * h)
            format = TJPF_CMYK
        } else if gray {
            source = (0..<(w * h)).map { stored.bytes[$0 * 4] }
            format = TJPF_GRAY
            sampling = TJSAMP_GRAY
        } else {
            source = stored.bytes
            format = TJPF_RGBA
        }
        guard let handle = tjInitCompress() else { throw Failure.encoder("tjInitCompress failed") }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { if let buffer { tjFree(buffer) } }
        let flags = TJFLAG_ACCURATEDCT | (progressive ? TJFLAG_PROGRESSIVE : 0)
        let status = source.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(w), 0, Int32(h), Int32(format.rawValue), &buffer, &size,
                Int32(sampling.rawValue), Int32(quality), Int32(flags))
        }
        guard status == 0, let buffer else {
            throw Failure.encoder("tjCompress2: \(String(cString: tjGetErrorStr2(handle)))")
        }
        let jpeg = Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
        return Data(orientation == 1 ? jpeg : withExifOrientation(jpeg, orientation))
    }

    /// An APP1 Exif segment (big-endian TIFF, one IFD0 entry: Orientation) after SOI and APP0.
    static func withExifOrientation(_ jpeg: [UInt8], _ orientation: Int) -> [UInt8] {
        var tiff: [UInt8] = Array("MM".utf8) + [0x00, 0x2A, 0, 0, 0, 8]
        tiff += [0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation), 0, 0, 0, 0, 0, 0]
        let body = Array("Exif".utf8) + [0, 0] + tiff
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        var at = 2
        if jpeg.count > 6, jpeg[2] == 0xFF, jpeg[3] == 0xE0 { at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])) }
        return Array(jpeg[0..<at]) + segment + Array(jpeg[at...])
    }

    /// A still WebP: lossless, or lossy at `quality`.
    static func webp(_ rgba: PixelBuffer, lossless: Bool, quality: Int) throws -> Data {
        var output: UnsafeMutablePointer<UInt8>? = nil
        let size = rgba.bytes.withUnsafeBufferPointer {
            lossless
                ? WebPEncodeLosslessRGBA(
                    $0.baseAddress, Int32(rgba.width), Int32(rgba.height), Int32(rgba.width * 4), &output)
                : WebPEncodeRGBA(
                    $0.baseAddress, Int32(rgba.width), Int32(rgba.height), Int32(rgba.width * 4), Float(quality),
                    &output)
        }
        defer { if let output { WebPFree(output) } }
        guard size > 0, let output else { throw Failure.encoder("WebPEncode failed for \(rgba.width)x\(rgba.height)") }
        return Data(UnsafeBufferPointer(start: output, count: size))
    }

    /// An animated WebP through WebPAnimEncoder (which writes sub-frames and blending itself).
    static func animatedWebP(_ frames: [PixelBuffer], durations: [Int], lossless: Bool, quality: Int) throws -> Data {
        let w = Int32(frames[0].width), h = Int32(frames[0].height)
        var options = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&options) != 0 else { throw Failure.encoder("WebPAnimEncoderOptionsInit") }
        guard let encoder = WebPAnimEncoderNew(w, h, &options) else { throw Failure.encoder("WebPAnimEncoderNew") }
        defer { WebPAnimEncoderDelete(encoder) }
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw Failure.encoder("WebPConfigInit") }
        config.lossless = lossless ? 1 : 0
        config.quality = Float(quality)
        var timestamp: Int32 = 0
        for (k, frame) in frames.enumerated() {
            var picture = WebPPicture()
            guard WebPPictureInit(&picture) != 0 else { throw Failure.encoder("WebPPictureInit") }
            picture.width = w
            picture.height = h
            picture.use_argb = 1
            defer { WebPPictureFree(&picture) }
            let imported = frame.bytes.withUnsafeBufferPointer {
                WebPPictureImportRGBA(&picture, $0.baseAddress, w * 4)
            }
            guard imported != 0 else { throw Failure.encoder("WebPPictureImportRGBA") }
            guard WebPAnimEncoderAdd(encoder, &picture, timestamp, &config) != 0 else {
                throw Failure.encoder("WebPAnimEncoderAdd: \(String(cString: WebPAnimEncoderGetError(encoder)))")
            }
            timestamp += Int32(max(1, durations[k]))
        }
        guard WebPAnimEncoderAdd(encoder, nil, timestamp, nil) != 0 else {
            throw Failure.encoder("WebPAnimEncoderAdd(nil)")
        }
        var data = WebPData()
        WebPDataInit(&data)
        defer { WebPDataClear(&data) }
        guard WebPAnimEncoderAssemble(encoder, &data) != 0, let bytes = data.bytes else {
            throw Failure.encoder("WebPAnimEncoderAssemble: \(String(cString: WebPAnimEncoderGetError(encoder)))")
        }
        return Data(UnsafeBufferPointer(start: bytes, count: data.size))
    }
}

/// Exif orientations as the stored image a camera writes: `stored(upright, o)` is the image
/// that, turned as orientation `o` says (Exif 2.32, tag 0x0112), shows `upright`. Written from
/// the standard's table, independently of the engine's `Orientation`.
enum Orientations {
    static func stored(_ upright: PixelBuffer, orientation o: Int) -> PixelBuffer {
        guard o != 1 else { return upright }
        let swaps = o >= 5
        let sw = swaps ? upright.height : upright.width, sh = swaps ? upright.width : upright.height
        var out = PixelBuffer(width: sw, height: sh, layout: .rgba)
        for sy in 0..<sh {
            for sx in 0..<sw {
                // Where the stored pixel (sx, sy) is shown.
                let (ux, uy): (Int, Int) =
                    switch o {
                    case 2: (sw - 1 - sx, sy)
                    case 3: (sw - 1 - sx, sh - 1 - sy)
                    case 4: (sx, sh - 1 - sy)
                    case 5: (sy, sx)
                    case 6: (sh - 1 - sy, sx)
                    case 7: (sh - 1 - sy, sw - 1 - sx)
                    default: (sy, sw - 1 - sx)  // 8
                    }
                let s = (sy * sw + sx) * 4, u = (uy * upright.width + ux) * 4
                for c in 0..<4 { out.bytes[s + c] = upright.bytes[u + c] }
            }
        }
        return out
    }
}
