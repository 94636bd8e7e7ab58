import Foundation
internal import CJPEGShim

extension JPEGCodec {
    /// The step a DC-only decode adds to the log.
    package static let dcNote = "read the DC coefficients only (no AC decoding at 1/8)"

    /// The planar decode at 1/8 without libjpeg's entropy decoder (`JPEGDCDecoder`): the luma
    /// plane, byte for byte what libjpeg's 1/8 decode gives, and the chroma as 4:2:0 planes,
    /// reduced as they arrive by `JPEGPlaneCollector` as it reduces libjpeg's (each chroma
    /// block's DC sample where libjpeg's 1/8 decode would IDCT 2x2 of them for 4:2:0). The
    /// header is read by libjpeg first, as for every decode, so the pixel budget, strictness,
    /// colour space and ICC profile are decided there (`decoder`, fresh from
    /// `JPEGRowDecoder.init(header:strict:)` over `bytes`).
    ///
    /// The whole data is read before anything is handed out, so a file that turns out damaged
    /// costs nothing but the time: nil then, for libjpeg to decode and report it. Held: the luma
    /// plane and the two 4:2:0 chroma planes, 1.5 bytes a pixel at 1/8, and one MCU row.
    ///
    /// Nil unless the scale `options` picks is 1/8 and the file is a three-component YCbCr
    /// baseline JPEG whose header raised no warning, whose sampling the collector takes, and
    /// whose data `JPEGDCDecoder` reads to its end marker without a fault.
    static func dcPlanes(_ bytes: UnsafeRawBufferPointer, header decoder: JPEGRowDecoder, options: DecodeOptions)
        throws(CodecError) -> (luma: DecodedImage, cb: PixelBuffer, cr: PixelBuffer)?
    {
        let header = decoder.header
        guard header.colorSpace == PA_JPEG_CS_YCBCR, header.components == 3, !header.isProgressive,
            !header.isMultiScan, decoder.warningCount == 0
        else { return nil }
        try Limits.check(width: header.width, height: header.height, budget: options.pixelBudget)
        let scale = Scaling.jpeg(width: header.width, height: header.height, box: options.minimumSize)
        let (width, height) = ((header.width + 7) / 8, (header.height + 7) / 8)
        guard scale.num * 8 == scale.denom, var reader = JPEGDCDecoder(bytes), reader.geometry.count == 3,
            let collector = JPEGPlaneCollector(reader.geometry, width: width, height: height)
        else { return nil }
        var luma = PixelBuffer(width: width, height: height, layout: .gray)
        let stride = luma.stride
        let (rows, failed) = luma.withUnsafeMutableBytes { out in
            collector.readLuma({ reader.readGroup($0) }, into: out.baseAddress!, stride: stride, count: height)
        }
        guard !failed, rows == height, reader.finish() else { return nil }
        let image = DecodedImage(
            pixels: luma, sourceWidth: header.width, sourceHeight: header.height, iccProfile: decoder.embeddedProfile,
            notes: [dcNote])
        return (image, collector.cb, collector.cr)
    }

    /// Proves `data` whole by reading it with `dcPlanes` alone, for a validation decode at 1/8:
    /// the size of the 1/8 planes and the embedded ICC profile, or nil when `dcPlanes` does not
    /// take the file (not a three-component YCbCr baseline JPEG decoded at 1/8, a header that
    /// raised a libjpeg warning, data the reader finds any fault in) or on any error. A file it
    /// takes is one libjpeg decodes without a warning (`JPEGDCDecoderTests`); for any other, the
    /// caller's libjpeg decode reports what it finds.
    ///
    ///     if let read = JPEGCodec.validateByDC(data, options: DecodeOptions(minimumSize: (1, 1))) { ... }
    package static func validateByDC(_ data: Data, options: DecodeOptions)
        -> (width: Int, height: Int, iccProfile: [UInt8]?)?
    {
        data.withUnsafeBytes { bytes in
            guard let decoder = try? JPEGRowDecoder(header: bytes, strict: options.strict),
                let read = try? dcPlanes(bytes, header: decoder, options: options)
            else { return nil }
            return (read.luma.pixels.width, read.luma.pixels.height, read.luma.iccProfile)
        }
    }
}
