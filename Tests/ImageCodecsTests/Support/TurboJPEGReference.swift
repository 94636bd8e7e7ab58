internal import CTurboJPEG
import Foundation
import MediaTypes

@testable import ImageCodecs

/// The decode the JPEG row decoder replaced: TurboJPEG's whole-frame `tjDecompress2` with
/// `TJFLAG_ACCURATEDCT | TJFLAG_LIMITSCANS`, in the same pixel format (`TJPF_GRAY` for grey,
/// `TJPF_CMYK` for CMYK/YCCK, `TJPF_RGB` otherwise), so the row decoder's output can be
/// compared with it byte for byte. CMYK goes to RGB as the row decoder takes it: through the
/// embedded CMYK profile (`CMYKColorTransform`, the whole frame in one call) when lcms2 can use
/// it, else the default CMYK profile (`DefaultCMYKProfile`).
///
///     let reference = TurboJPEGReference.decode([UInt8](data), width: w, height: h)
enum TurboJPEGReference {
    struct Result {
        /// Nil when `tjDecompress2` failed outright.
        var pixels: PixelBuffer?
        /// The message of a failure, or of the call's first warning (all TurboJPEG kept).
        var message: String?
        var isWarning: Bool
    }

    /// Size and colour space as `tjDecompressHeader3` reads them (nil when it cannot).
    static func header(_ jpeg: [UInt8]) -> (width: Int, height: Int, colorSpace: Int32)? {
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = -1, colorSpace: Int32 = -1
        _ = jpeg.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorSpace)
        }
        // "Could not determine subsampling" fails the call after the fields are filled in.
        guard width > 0, height > 0, colorSpace >= 0 else { return nil }
        return (Int(width), Int(height), colorSpace)
    }

    /// The stored CMYK of a CMYK or YCCK JPEG at full size (inverted for Adobe files), or nil.
    static func rawCMYK(_ jpeg: [UInt8]) -> (cmyk: [UInt8], width: Int, height: Int)? {
        guard let header = header(jpeg), let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        var output = [UInt8](repeating: 0, count: header.width * header.height * 4)
        let status = jpeg.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                tjDecompress2(
                    handle, source.baseAddress, UInt(source.count), destination.baseAddress, Int32(header.width),
                    Int32(header.width * 4), Int32(header.height), Int32(TJPF_CMYK.rawValue),
                    Int32(TJFLAG_ACCURATEDCT))
            }
        }
        return status == 0 ? (output, header.width, header.height) : nil
    }

    /// Decodes at the TurboJPEG factor whose output is `width` x `height` (TurboJPEG takes the
    /// largest factor that fits, as `Scaling.jpeg` does).
    static func decode(_ jpeg: [UInt8], width: Int, height: Int, strict: Bool = false) -> Result? {
        guard let header = header(jpeg), let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        let isCMYK = header.colorSpace == Int32(TJCS_CMYK.rawValue) || header.colorSpace == Int32(TJCS_YCCK.rawValue)
        let isGray = header.colorSpace == Int32(TJCS_GRAY.rawValue)
        let format: TJPF = isCMYK ? TJPF_CMYK : (isGray ? TJPF_GRAY : TJPF_RGB)
        let channels = isCMYK ? 4 : (isGray ? 1 : 3)
        var flags = TJFLAG_ACCURATEDCT | TJFLAG_LIMITSCANS
        if strict { flags |= TJFLAG_STOPONWARNING }
        var output = [UInt8](repeating: 0, count: width * height * channels)
        let status = jpeg.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                tjDecompress2(
                    handle, source.baseAddress, UInt(source.count), destination.baseAddress, Int32(width),
                    Int32(width * channels), Int32(height), Int32(format.rawValue), Int32(flags))
            }
        }
        let isWarning = status != 0 && tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue)
        let message = status != 0 ? String(cString: tjGetErrorStr2(handle)) : nil
        guard status == 0 || isWarning else { return Result(pixels: nil, message: message, isWarning: false) }
        let pixels =
            isCMYK
            ? cmykToRGB(output, jpeg: jpeg, width: width, height: height)
            : PixelBuffer(width: width, height: height, layout: isGray ? .gray : .rgb, bytes: output)
        return Result(pixels: pixels, message: message, isWarning: isWarning)
    }

    /// TurboJPEG's CMYK output as RGB: through the file's CMYK profile when lcms2 can use it,
    /// through the default CMYK profile otherwise.
    static func cmykToRGB(_ cmyk: [UInt8], jpeg: [UInt8], width: Int, height: Int) -> PixelBuffer {
        let inverted = hasAdobeSegment(jpeg)
        let embedded = (try? JPEGCodec.readInfo(Data(jpeg)).iccProfile).flatMap {
            try? CMYKColorTransform.make(profile: $0, inverted: inverted).get()
        }
        guard
            let transform = embedded
                ?? (try? CMYKColorTransform.make(
                    profile: DefaultCMYKProfile.bytes, inverted: inverted, rendering: DefaultCMYKProfile.rendering
                ).get())
        else { return CMYKConversion.toRGB(cmyk, width: width, height: height, inverted: inverted) }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        transform.convert(cmyk, stride: width * 4, into: &rgb, stride: width * 3, width: width, rows: height)
        return PixelBuffer(width: width, height: height, layout: .rgb, bytes: rgb)
    }

    /// An APP14 "Adobe" segment before the first scan, found the way libjpeg finds it: past
    /// junk between segments. (`JPEGHeader`'s walk gives up at junk, so asking it would leave a
    /// CMYK file with junk before a marker un-inverted, as the full corpus's
    /// ljt_github305_CVE-2018-19664.jpg is. The row decoder takes libjpeg's own `saw_Adobe_marker`.)
    static func hasAdobeSegment(_ jpeg: [UInt8]) -> Bool {
        guard let segments = try? JPEGSegments.read(jpeg, skippingExtraneousBytes: true) else { return false }
        return segments.contains { segment in
            segment.marker == 0xEE && segment.payloadLength >= 12
                && jpeg[segment.payloadRange].starts(with: Array("Adobe".utf8))
        }
    }

    /// Whether TurboJPEG's one message is a libjpeg warning that leaves the pixels as encoded:
    /// the texts of the message codes the shim classifies so (`pa_jpeg_warning_is_metadata`).
    /// TurboJPEG gives only the text, so the reference is read by it, here in the tests alone.
    static func isMetadataMessage(_ message: String) -> Bool {
        [
            "unknown JFIF revision", "Unknown Adobe color transform", "bad ICC marker",
            "Invalid SOS parameters for sequential JPEG", "extraneous bytes before marker",
        ].contains { message.contains($0) }
    }

    /// TurboJPEG's fatal message as the `CodecError` the row decoder gives for the same failure
    /// (its message codes read back from their texts: `pa_jpeg_error_is_unsupported`).
    static func codecError(_ message: String) -> CodecError {
        let unsupported = [
            "DNL not supported", "Unsupported JPEG process", "Unsupported JPEG data precision",
            "Unsupported color conversion",
        ]
        if unsupported.contains(where: { message.contains($0) }) {
            return .unsupported(codec: JPEGCodec.name, message: message)
        }
        return .corrupt(codec: JPEGCodec.name, message: message)
    }
}
