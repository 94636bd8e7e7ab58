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
    /// Nil unless `ownDecoding` is on, the scale `options` picks is 1/8 and the file is a
    /// three-component YCbCr baseline JPEG whose header raised no warning, whose sampling the
    /// collector takes, and whose data `JPEGDCDecoder` reads to its end marker without a fault.
    static func dcPlanes(_ bytes: UnsafeRawBufferPointer, header decoder: JPEGRowDecoder, options: DecodeOptions)
        throws(CodecError) -> (luma: DecodedImage, cb: PixelBuffer, cr: PixelBuffer)?
    {
        let header = decoder.header
        let (width, height) = ((header.width + 7) / 8, (header.height + 7) / 8)
        guard var reader = try dcReader(bytes, header: decoder, options: options),
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

    /// The DC reader over `bytes` when it may take the file (see `dcPlanes`): the scale is 1/8,
    /// the file a three-component YCbCr baseline JPEG whose header raised no warning, within the
    /// pixel budget, and sampled as `JPEGPlaneCollector` takes it (as libjpeg's upsampler does).
    /// Nil otherwise, and always when `ownDecoding` is off; the budget's error is thrown, as
    /// libjpeg's decode would throw it.
    private static func dcReader(_ bytes: UnsafeRawBufferPointer, header decoder: JPEGRowDecoder, options: DecodeOptions)
        throws(CodecError) -> JPEGDCDecoder?
    {
        let header = decoder.header
        guard ownDecoding, !header.isProgressive, !header.isMultiScan, try takesAtOneEighth(decoder, options: options),
            let reader = JPEGDCDecoder(bytes),
            JPEGPlaneCollector.takes(reader.geometry, width: (header.width + 7) / 8, height: (header.height + 7) / 8)
        else { return nil }
        return reader
    }

    /// What the readers of this file share: a three-component YCbCr JPEG whose header raised no
    /// warning, within the pixel budget (its error is thrown, as libjpeg's decode would throw
    /// it), that `options` decode at 1/8.
    private static func takesAtOneEighth(_ decoder: JPEGRowDecoder, options: DecodeOptions) throws(CodecError) -> Bool {
        let header = decoder.header
        guard header.colorSpace == PA_JPEG_CS_YCBCR, header.components == 3, decoder.warningCount == 0 else {
            return false
        }
        try Limits.check(width: header.width, height: header.height, budget: options.pixelBudget)
        let scale = Scaling.jpeg(width: header.width, height: header.height, box: options.minimumSize)
        return scale.num * 8 == scale.denom
    }

    /// A progressive file's validation at 1/8 by `JPEGProgressiveReader`: the files `dcReader`
    /// would take but for being progressive (the same components, warnings, budget, scale and
    /// sampling), read to EOI with every coefficient final. False for libjpeg to decode it, and
    /// always when `ownDecoding` is off.
    private static func validateProgressive(
        _ bytes: UnsafeRawBufferPointer, header decoder: JPEGRowDecoder, options: DecodeOptions
    ) -> Bool {
        let header = decoder.header
        guard ownDecoding, header.isProgressive, (try? takesAtOneEighth(decoder, options: options)) == true else { return false }
        return JPEGProgressiveReader.readsWhole(bytes) { frame in
            JPEGPlaneCollector.takes(
                frame.planesAtOneEighth, width: (header.width + 7) / 8, height: (header.height + 7) / 8)
        }
    }

    /// Proves `data` whole with the DC reader alone, for a validation decode at 1/8: it takes
    /// the files `dcPlanes` takes and reads their data to the end marker, one MCU row at a time
    /// into one scratch group that is overwritten (a row of blocks of each component at 1/8, so
    /// what it holds grows with the width, never the area). Returns the size of libjpeg's 1/8
    /// decode and the embedded ICC profile, or nil when the reader does not take the file (see
    /// `dcReader`), finds any fault in its data, or on any error. A file it takes is one
    /// libjpeg decodes without a warning (`JPEGDCDecoderTests`, `ValidationByDCTests`); for any
    /// other, the caller's libjpeg decode reports what it finds.
    ///
    ///     if let read = JPEGCodec.validateByDC(data, options: DecodeOptions(minimumSize: (1, 1))) { ... }
    package static func validateByDC(_ data: Data, options: DecodeOptions)
        -> (width: Int, height: Int, iccProfile: [UInt8]?)?
    {
        data.withUnsafeBytes { bytes in
            guard let decoder = try? JPEGRowDecoder(header: bytes, strict: options.strict) else { return nil }
            if validateProgressive(bytes, header: decoder, options: options) {
                return ((decoder.header.width + 7) / 8, (decoder.header.height + 7) / 8, decoder.embeddedProfile)
            }
            guard let taken = try? dcReader(bytes, header: decoder, options: options) else { return nil }
            var reader = taken
            let planes = reader.geometry
            let groupBytes = planes.reduce(0) { $0 + Int($1.padded_width) * Int($1.rows_per_group) }
            let group = UnsafeMutablePointer<UInt8>.allocate(capacity: max(groupBytes, 1))
            defer { group.deallocate() }
            var rows: [UnsafeMutablePointer<UInt8>?] = []
            var offset = 0
            for plane in planes {
                for _ in 0..<Int(plane.rows_per_group) {
                    rows.append(group + offset)
                    offset += Int(plane.padded_width)
                }
            }
            while true {
                guard let lines = rows.withUnsafeMutableBufferPointer({ reader.readGroup($0.baseAddress!) }) else { return nil }
                if lines == 0 { break }
            }
            guard reader.finish() else { return nil }
            return ((decoder.header.width + 7) / 8, (decoder.header.height + 7) / 8, decoder.embeddedProfile)
        }
    }
}
