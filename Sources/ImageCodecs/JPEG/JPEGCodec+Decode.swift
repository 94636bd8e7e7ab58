internal import CTurboJPEG
import Foundation
import MediaTypes

extension JPEGCodec {
    /// Decodes to `.gray` (greyscale JPEGs) or `.rgb` (everything else; CMYK and YCCK are
    /// converted, see `CMYKConversion`).
    ///
    ///     let image = try JPEGCodec.decode(data, options: DecodeOptions(strict: true))
    ///
    /// The header size is checked against `options.pixelBudget` before pixels are allocated.
    /// Always decodes with accurate DCT and `TJFLAG_LIMITSCANS` (progressive files with more
    /// than 500 scans are refused, a known denial-of-service shape).
    public static func decode(_ data: Data, options: DecodeOptions) throws(CodecError) -> DecodedImage {
        try decode(bytes: [UInt8](data), options: options)
    }

    /// `decode(_:options:)` from bytes the caller already holds as `[UInt8]` (no copy).
    package static func decode(bytes: [UInt8], options: DecodeOptions) throws(CodecError) -> DecodedImage {
        let markers = JPEGHeader(bytes)
        return try TurboJPEGPool.decompressors.with(decoding: markers) { handle throws(CodecError) in
            try decode(bytes, markers: markers, handle: handle, options: options)
        }
    }

    private static func decode(
        _ bytes: [UInt8], markers: JPEGHeader, handle: TurboJPEGHandle, options: DecodeOptions
    ) throws(CodecError) -> DecodedImage {
        let header = try readHeader(bytes, markers: markers, handle: handle, strict: options.strict)
        try Limits.check(width: header.width, height: header.height, budget: options.pixelBudget)
        let scale = Scaling.jpeg(width: header.width, height: header.height, box: options.minimumSize)
        let isCMYK = header.colorSpace == Int32(TJCS_CMYK.rawValue) || header.colorSpace == Int32(TJCS_YCCK.rawValue)
        let isGray = header.colorSpace == Int32(TJCS_GRAY.rawValue)
        let format: TJPF = isCMYK ? TJPF_CMYK : (isGray ? TJPF_GRAY : TJPF_RGB)
        let channels = isCMYK ? 4 : (isGray ? 1 : 3)
        var flags = TJFLAG_LIMITSCANS | TJFLAG_ACCURATEDCT
        if options.strict { flags |= TJFLAG_STOPONWARNING }

        var output = [UInt8](repeating: 0, count: scale.width * scale.height * channels)
        let outcome = bytes.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                TurboJPEGMessages.call(handle) { raw in
                    tjDecompress2(
                        raw, source.baseAddress, UInt(source.count), destination.baseAddress,
                        Int32(scale.width), Int32(scale.width * channels), Int32(scale.height),
                        Int32(format.rawValue), Int32(flags))
                }
            }
        }
        var warnings = header.warnings
        var damage = header.damage
        if outcome.status != 0 {
            let message = outcome.message ?? "unknown TurboJPEG error"
            guard outcome.isWarning, !options.strict else { throw classify(message) }
            if !warnings.contains(message) { warnings.append(message) }
            if !Self.isMetadataWarning(message) {
                if !damage.contains(message) { damage.append(message) }
            } else if damage.isEmpty, !Self.hasEndOfImage(bytes) {
                // libjpeg words only the first warning of a decode (TurboJPEG keeps that one
                // text), so harmless junk early on would hide a scan cut short later. The end
                // marker is the cheap proof that the data runs to its end.
                damage.append("Premature end of JPEG file (no end-of-image marker after the scan)")
            }
        }

        let pixels: PixelBuffer
        if isCMYK {
            // Adobe (APP14) files store inverted CMYK; the APP14 marker decides.
            pixels = CMYKConversion.toRGB(
                output, width: scale.width, height: scale.height, inverted: header.markers.adobeTransform != nil)
        } else {
            pixels = PixelBuffer(width: scale.width, height: scale.height, layout: isGray ? .gray : .rgb, bytes: output)
        }
        return DecodedImage(
            pixels: pixels, sourceWidth: header.width, sourceHeight: header.height,
            iccProfile: header.markers.iccProfile, warnings: warnings, damage: damage)
    }

    /// libjpeg warnings that leave the pixels as encoded: an unknown JFIF revision, an unknown
    /// Adobe transform code (the colours may be off), a bad ICC marker, SOS parameters a
    /// sequential file ignores anyway, and junk bytes skipped before a marker ("Corrupt JPEG
    /// data: 4 extraneous bytes before marker 0xdb": the decoder had finished what came before).
    /// Every other JWRN_ means pixels made up: "bad Huffman code", "Premature end of JPEG file",
    /// "found marker 0x.. instead of RSTn" (a resync), "Inconsistent progression sequence",
    /// "Unsupported marker type".
    static func isMetadataWarning(_ message: String) -> Bool {
        [
            "unknown JFIF revision", "Unknown Adobe color transform", "bad ICC marker",
            "Invalid SOS parameters for sequential JPEG", "extraneous bytes before marker",
        ].contains { message.contains($0) }
    }

    /// True when an EOI marker (FF D9) follows the first scan header. The header segments are
    /// walked (an Exif thumbnail in APP1 has an EOI of its own); inside entropy-coded data 0xFF
    /// is always followed by 0x00 or a restart marker, so FF D9 there is the real end.
    static func hasEndOfImage(_ bytes: [UInt8]) -> Bool {
        guard let segments = try? JPEGSegments.read(bytes, skippingExtraneousBytes: true),
            let scan = segments.last, scan.marker == 0xDA
        else { return false }
        var i = scan.payloadRange.upperBound
        while i + 1 < bytes.count {
            if bytes[i] == 0xFF, bytes[i + 1] == 0xD9 { return true }
            i += 1
        }
        return false
    }
}
