import Foundation
import ImageCodecs
import MediaTypes

/// The JPEG-to-JPEG transcode through YCbCr planes.
///
/// A JPEG stores luma and two chroma planes, and the output JPEG stores the same. Through RGB,
/// the decoder upsamples the chroma and converts to RGB, the resizer resamples three full-size
/// channels, and the encoder converts back and averages the chroma down again. Through planes,
/// the decoder hands out its components as they are (`JPEGCodec.withPlanes`: the chroma
/// reduced to 4:2:0 as it arrives), the luma plane streams through the same `RowResizer` (with
/// the orientation fused in), then the two quarter-size chroma planes, held whole,
/// and the encoder takes the planes as its components (`JPEGCodec.encode(_:quality:iccProfile:)`).
/// That is half the samples to resample and no colour conversion either way; the luma is the
/// same Lanczos3 of the same decoded luma, the chroma is the source's own, never upsampled.
extension ImageProcessor {
    /// The planar path's output, or nil when it does not apply and `transcode`'s RGB path
    /// runs instead: a source other than a single-frame three-component YCbCr JPEG (CMYK,
    /// RGB-stored, grey; the RGB route warns about extra frames), a
    /// sampling the planes do not take (`JPEGPlaneCollector.factors`: 4:1:1, fractional ratios), a decode at 1/4,
    /// at 1/8 one the DC-only reader does not take (progressive, a damaged or odd stream: `JPEGCodec.withPlanes`),
    /// or one whose planes would hold more than the RGB path (`planesFit`), or an
    /// encode at `limits.quality` over the byte cap (the RGB path's quality search runs then).
    func transcodePlanes(
        _ job: StillJob, options: DecodeOptions, log: inout ProcessingLog
    ) throws(ProcessingError) -> ProcessingResult? {
        let (stored, limits, mainSize) = (job.stored, job.limits, job.mainSize)
        guard limits.resizesPlanes, job.format == .jpeg, !job.isCMYK, job.info.colorSpace == "ycbcr", job.info.frames == 1,
            Self.planesFit(stored: stored, options: options, output: mainSize)
        else { return nil }
        var planarLog = log
        guard let frame = try planarFrame(job, options: options, log: &planarLog) else { return nil }
        let data: Data
        do { data = try JPEGCodec.encode(frame.planes, quality: limits.quality, iccProfile: frame.icc) } catch {
            throw .codec(error)
        }
        guard data.count <= limits.byteCap else {
            log.steps.append(
                "YCbCr planes at q\(limits.quality) are \(data.count) bytes, over \(limits.byteCap): fitted through RGB")
            return nil
        }
        planarLog.steps.append("encoded jpeg q\(limits.quality) (\(data.count) bytes)")
        let output = ProcessedImage(
            data: data, format: .jpeg, width: mainSize.width, height: mainSize.height, quality: limits.quality)
        let thumbnail = try job.thumbSize.map { size throws(ProcessingError) in
            try planarThumbnail(frame.planes, size: size, icc: frame.icc, within: mainSize, limits: limits, log: &planarLog)
        }
        log = planarLog
        return ProcessingResult(
            output: output, passthrough: false, thumbnail: thumbnail, steps: log.steps, warnings: log.warnings,
            sourceWidth: stored.width, sourceHeight: stored.height, uprightSourceSize: job.upright)
    }

    /// The planar decode, resized to `job.mainSize` and turned upright, with its steps logged as
    /// `transcode` logs them, and the profile that describes it; nil when `JPEGCodec.withPlanes`
    /// does not take the file. The chroma planes at the decode scale are released on return, so
    /// the encode holds only the output planes (and, for an odd size, the padded luma).
    private func planarFrame(_ job: StillJob, options: DecodeOptions, log: inout ProcessingLog)
        throws(ProcessingError) -> (planes: YCbCrPlanes, icc: [UInt8]?)?
    {
        let (orientation, mainSize) = (job.orientation, job.mainSize)
        let decode = try Self.streamPlanes(job.input, options: options, decodeAhead: job.limits.decodeAhead) {
            luma throws(CodecError) in
            try rowResizer.resize(luma, to: mainSize, orientation: orientation).pixels
        }
        guard let decode else { return nil }
        try Self.record(decode, stored: job.stored, format: job.format, limits: job.limits, &log)
        if orientation != .up {
            log.steps.append("oriented upright (\(log.orientationFromXMP ? "XMP" : "EXIF") \(orientation.rawValue))")
        }
        let chroma = YCbCrPlanes.chromaSize(width: mainSize.width, height: mainSize.height)
        let chromaSize = Size(width: chroma.width, height: chroma.height)
        let (cb, cr) = decode.value.chroma
        let planes: YCbCrPlanes
        do {
            planes = YCbCrPlanes(
                y: decode.value.y,
                cb: try rowResizer.resize(FrameRowSource(cb), to: chromaSize, orientation: orientation).pixels,
                cr: try rowResizer.resize(FrameRowSource(cr), to: chromaSize, orientation: orientation).pixels)
        } catch {
            throw .codec(error)
        }
        if mainSize != job.upright {
            log.steps.append("resized \(job.upright.width)x\(job.upright.height) -> \(mainSize.width)x\(mainSize.height)")
        }
        log.steps.append("resampled as YCbCr 4:2:0 planes (no RGB round trip)")
        return (planes, Self.profile(decode.iccProfile, for: .rgb, &log))
    }

    /// True when the planar path pays and holds no more than the memory `workingMemory`
    /// counts for the image.
    ///
    /// It pays at decode scales above 1/4: the colour work and the resize it halves grow with
    /// the decoded pixels, the entropy decoding it cannot touch with the file. There the chroma
    /// planes gathered at the decode scale plus the output planes must take no more bytes than
    /// the RGB path's output frame (3 bytes a pixel). A 5/8 decode for a 2048 px fit holds
    /// about two thirds of that frame. At the encode the decode-scale chroma is gone
    /// (`planarFrame`), and an odd-sized luma's padded copy (`JPEGCodec.evenSized`, one luma
    /// frame) is within it too.
    ///
    /// At 1/4 (W1's 256 px thumbnails of small photos) it measured the same time as RGB, while
    /// lowering W1's mean luma SSIM against Pillow's reference by 0.00003 (three progressive
    /// photos), so 1/4 stays RGB. At 1/8 the codec reads only the DC coefficients of a baseline
    /// file (`JPEGCodec.withPlanes`, `JPEGDCDecoder`), which takes the entropy decoding itself
    /// on; a file it does not take goes the RGB way. Its planes at 1/8 (1.5 bytes a decoded
    /// pixel) are counted by `workingMemory` as the decoder's, and the output planes hold half
    /// the frame it counts, so 1/8 always fits.
    static func planesFit(stored: Size, options: DecodeOptions, output: Size) -> Bool {
        let decoded = ImageCodecs.scaledSize(
            width: stored.width, height: stored.height, minimumSize: options.minimumSize, format: .jpeg)
        if decoded.width == (stored.width + 7) / 8 && decoded.height == (stored.height + 7) / 8 { return true }
        guard decoded.width > (stored.width + 3) / 4 else { return false }
        func planeBytes(_ w: Int, _ h: Int) -> Int { 2 * ((w + 1) / 2) * ((h + 1) / 2) }
        let held = planeBytes(decoded.width, decoded.height) + output.width * output.height
            + planeBytes(output.width, output.height)
        return held <= 3 * output.width * output.height
    }

    /// `stream` for a planar decode: `luma` gets the luma rows (and must read them all); the
    /// chroma planes are taken once the decode (and any decode-ahead thread) is done. Nil when
    /// `JPEGCodec.withPlanes` does not take the file.
    static func streamPlanes(
        _ input: EncodedInput, options: DecodeOptions, decodeAhead: Bool,
        _ luma: (any ImageRowSource) throws(CodecError) -> PixelBuffer
    ) throws(ProcessingError) -> StreamedDecode<(y: PixelBuffer, chroma: (PixelBuffer, PixelBuffer))>? {
        do {
            return try JPEGCodec.withPlanes(input.data, options: options, onlyDCAtOneEighth: true) { inner, chroma in
                // `streamed` has joined any decode-ahead thread, the chroma's writer, by now.
                let decoded = try streamed(inner, decodeAhead: decodeAhead, luma)
                let planes = chroma()
                return decoded.map { (y: $0, chroma: (planes.cb, planes.cr)) }
            }
        } catch {
            throw processingError(error)
        }
    }

    /// The thumbnail resampled from the main output's planes, as `encodeThumbnail` makes it
    /// from RGB (`fitThumbnail`): JPEG at `thumbnailQuality`, made smaller while over the byte cap.
    private func planarThumbnail(
        _ planes: YCbCrPlanes, size requested: Size, icc: [UInt8]?, within output: Size, limits: ProcessingLimits,
        log: inout ProcessingLog
    ) throws(ProcessingError) -> ProcessedImage {
        let image = try fitThumbnail(requested, within: output, limits: limits, log: &log) { size throws(CodecError) in
            let chroma = YCbCrPlanes.chromaSize(width: size.width, height: size.height)
            let chromaSize = Size(width: chroma.width, height: chroma.height)
            let thumb = YCbCrPlanes(
                y: resizer.resize(planes.y, to: size), cb: resizer.resize(planes.cb, to: chromaSize),
                cr: resizer.resize(planes.cr, to: chromaSize))
            let data = try JPEGCodec.encode(thumb, quality: limits.thumbnailQuality, iccProfile: icc)
            return ProcessedImage(
                data: data, format: .jpeg, width: size.width, height: size.height, quality: limits.thumbnailQuality)
        }
        log.steps[log.steps.count - 1] += " (from the main output)"
        return image
    }
}
