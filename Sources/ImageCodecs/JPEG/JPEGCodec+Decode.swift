internal import CTurboJPEG
import Foundation

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
        try TurboJPEGPool.decompressors.with { handle throws(CodecError) in
            try decode(bytes, handle: handle, options: options)
        }
    }

    private static func decode(_ bytes: [UInt8], handle: TurboJPEGHandle, options: DecodeOptions) throws(CodecError)
        -> DecodedImage
    {
        let header = try readHeader(bytes, handle: handle, strict: options.strict)
        try Limits.check(width: header.width, height: header.height, budget: options.pixelBudget)
        let scale = Scaling.jpeg(width: header.width, height: header.height, box: options.minimumSize)
        let isCMYK = header.colorSpace == Int32(TJCS_CMYK.rawValue) || header.colorSpace == Int32(TJCS_YCCK.rawValue)
        let isGray = header.colorSpace == Int32(TJCS_GRAY.rawValue)
        let format: TJPF = isCMYK ? TJPF_CMYK : (isGray ? TJPF_GRAY : TJPF_RGB)
        let channels = isCMYK ? 4 : (isGray ? 1 : 3)
        var flags = TJFLAG_LIMITSCANS | TJFLAG_ACCURATEDCT
        if options.strict { flags |= TJFLAG_STOPONWARNING }

        var output = [UInt8](repeating: 0, count: scale.width * scale.height * channels)
        let status = bytes.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                tjDecompress2(
                    handle.raw, source.baseAddress, UInt(source.count), destination.baseAddress,
                    Int32(scale.width), Int32(scale.width * channels), Int32(scale.height),
                    Int32(format.rawValue), Int32(flags))
            }
        }
        var warnings = header.warnings
        var damage = header.damage
        if status != 0 {
            let message = handle.failure()
            guard handle.lastErrorIsWarning, !options.strict else { throw classify(message) }
            warnings.append(message)
            if !Self.isMetadataWarning(message) { damage.append(message) }
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

    /// libjpeg warnings that leave the image data whole: an unknown JFIF revision, an unknown
    /// Adobe transform code (the colours may be off), and junk bytes between two segments
    /// ("Corrupt JPEG data: 4 extraneous bytes before marker 0xdb": skipped, nothing lost).
    /// Junk before a restart marker (0xd0-0xd7) is inside a scan: the decoder resynchronised
    /// and the blocks in between are made up. Every other JWRN_ ("bad Huffman code", "Premature
    /// end of JPEG file", "Inconsistent progression sequence", "Invalid SOS parameters",
    /// "Unsupported marker type") means damaged data.
    static func isMetadataWarning(_ message: String) -> Bool {
        if message.contains("unknown JFIF revision") || message.contains("Unknown Adobe color transform") {
            return true
        }
        guard message.contains("extraneous bytes before marker 0x"),
            let range = message.range(of: "marker 0x"),
            let marker = UInt8(message[range.upperBound...].prefix(2), radix: 16)
        else { return false }
        return !(0xD0...0xD7).contains(marker)
    }
}
