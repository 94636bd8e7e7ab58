internal import CTurboJPEG
import Foundation

/// JPEG through TurboJPEG (libjpeg-turbo 2.1): header reads, scaled decodes, encodes.
///
///     let info = try JPEGCodec.readInfo(data)
///     let image = try JPEGCodec.decode(data, options: DecodeOptions(minimumSize: (256, 256)))
///     let jpeg = try JPEGCodec.encode(image.pixels, quality: 85)
///
/// Decodes 8-bit baseline, extended, progressive and arithmetic-coded JPEGs in grey, YCbCr,
/// RGB, CMYK and YCCK. 12-bit and lossless JPEGs throw `.unsupported`.
public enum JPEGCodec {
    static let name = "libjpeg-turbo"

    /// What TurboJPEG's header reader found, plus our own marker walk.
    struct Header {
        var width: Int
        var height: Int
        var subsampling: Int32
        var colorSpace: Int32
        var markers: JPEGHeader
        var warnings: [String]
        /// The warnings that say the image data itself is damaged (see `DecodedImage.damage`).
        var damage: [String] = []
    }

    /// Size, colour space, subsampling, progressive flag and ICC profile, without decoding.
    public static func readInfo(_ data: Data) throws(CodecError) -> ImageInfo {
        try readInfo(bytes: [UInt8](data))
    }

    /// `readInfo(_:)` from bytes the caller already holds as `[UInt8]` (no copy).
    package static func readInfo(bytes: [UInt8]) throws(CodecError) -> ImageInfo {
        let markers = JPEGHeader(bytes)
        let header = try TurboJPEGPool.decompressors.with(decoding: markers) { handle throws(CodecError) in
            try readHeader(bytes, markers: markers, handle: handle, strict: false)
        }
        return ImageInfo(
            width: header.width, height: header.height, hasAlpha: false, frames: 1,
            colorSpace: colorSpaceName(header.colorSpace), subsampling: subsamplingName(header.subsampling),
            isProgressive: header.markers.isProgressive, iccProfile: header.markers.iccProfile)
    }

    /// `markers` is `JPEGHeader(bytes)`, walked once by the caller (it also picks the handle).
    static func readHeader(_ bytes: [UInt8], markers: JPEGHeader, handle: TurboJPEGHandle, strict: Bool)
        throws(CodecError) -> Header
    {
        guard !bytes.isEmpty else { throw .corrupt(codec: name, message: "empty file (0 bytes)") }
        if let reason = markers.unsupportedReason { throw .unsupported(codec: name, message: reason) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = -1, colorSpace: Int32 = -1
        let outcome = bytes.withUnsafeBufferPointer { buffer in
            TurboJPEGMessages.call(handle) { raw in
                tjDecompressHeader3(
                    raw, buffer.baseAddress, UInt(buffer.count), &width, &height, &subsampling, &colorSpace)
            }
        }
        // Our marker walk's notes are about metadata (an ICC profile with a chunk missing);
        // libjpeg's warnings are mostly about the data (see `isMetadataWarning`).
        var warnings = markers.notes
        var damage: [String] = []
        if outcome.status != 0 {
            let message = outcome.message ?? "unknown TurboJPEG error"
            if message.contains("Could not determine subsampling"), let fallback = fallbackHeader(markers) {
                // TurboJPEG 2.1 refuses unusual sampling factors (4:1:0, mixed) in the header
                // call, but libjpeg decodes them; take the size from our own SOF read.
                (width, height, colorSpace) = fallback
                subsampling = -1
            } else if outcome.isWarning, !strict, width > 0, height > 0 {
                warnings.append(message)
                if !isMetadataWarning(message) { damage.append(message) }
            } else {
                throw classify(message)
            }
        }
        guard width > 0, height > 0 else {
            throw .corrupt(codec: name, message: "image has zero size (\(width)x\(height))")
        }
        return Header(
            width: Int(width), height: Int(height), subsampling: subsampling, colorSpace: colorSpace,
            markers: markers, warnings: warnings, damage: damage)
    }

    /// libjpeg's fatal message as a `CodecError`: variants it names as unsupported become
    /// `.unsupported`, everything else is `.corrupt`.
    static func classify(_ message: String) -> CodecError {
        let unsupported = [
            "DNL not supported", "Unsupported JPEG process", "Unsupported JPEG data precision",
            "Unsupported color conversion",
        ]
        if unsupported.contains(where: { message.contains($0) }) { return .unsupported(codec: name, message: message) }
        return .corrupt(codec: name, message: message)
    }

    private static func fallbackHeader(_ markers: JPEGHeader) -> (Int32, Int32, Int32)? {
        guard let width = markers.width, let height = markers.height, let components = markers.components else {
            return nil
        }
        let colorSpace: TJCS
        switch components {
        case 1: colorSpace = TJCS_GRAY
        case 3: colorSpace = markers.adobeTransform == 0 ? TJCS_RGB : TJCS_YCbCr
        case 4: colorSpace = markers.adobeTransform == 2 ? TJCS_YCCK : TJCS_CMYK
        default: return nil
        }
        return (Int32(width), Int32(height), Int32(colorSpace.rawValue))
    }

    static func colorSpaceName(_ value: Int32) -> String? {
        switch value {
        case Int32(TJCS_RGB.rawValue): "rgb"
        case Int32(TJCS_YCbCr.rawValue): "ycbcr"
        case Int32(TJCS_GRAY.rawValue): "gray"
        case Int32(TJCS_CMYK.rawValue): "cmyk"
        case Int32(TJCS_YCCK.rawValue): "ycck"
        default: nil
        }
    }

    static func subsamplingName(_ value: Int32) -> String? {
        switch value {
        case Int32(TJSAMP_444.rawValue): "4:4:4"
        case Int32(TJSAMP_422.rawValue): "4:2:2"
        case Int32(TJSAMP_420.rawValue): "4:2:0"
        case Int32(TJSAMP_GRAY.rawValue): "gray"
        case Int32(TJSAMP_440.rawValue): "4:4:0"
        case Int32(TJSAMP_411.rawValue): "4:1:1"
        default: nil
        }
    }
}
