import Foundation
import ImageCodecs
import MediaTypes

extension ImageProcessor {
    static func validate(_ limits: ProcessingLimits) throws(ProcessingError) {
        if limits.byteCap <= 0 { throw .invalidLimits("byteCap must be positive, got \(limits.byteCap)") }
        if limits.maxLongSide <= 0 { throw .invalidLimits("maxLongSide must be positive, got \(limits.maxLongSide)") }
        if limits.decodedBudget < 4 {
            throw .invalidLimits("decodedBudget must hold one pixel, got \(limits.decodedBudget)")
        }
        if limits.policy.pixelBudget <= 0 { throw .invalidLimits("pixelBudget must be positive, got \(limits.policy.pixelBudget)") }
        if !(1...100).contains(limits.quality) || !(1...100).contains(limits.qualityFloor)
            || !(1...100).contains(limits.thumbnailQuality)
        {
            throw .invalidLimits("qualities must be in 1...100")
        }
        if limits.maxAnimationFrames < 1 || limits.maxAnimationDuration < 0 {
            throw .invalidLimits(
                "maxAnimationFrames must be positive and maxAnimationDuration not negative, got \(limits.maxAnimationFrames) and \(limits.maxAnimationDuration)"
            )
        }
        if let side = limits.thumbnailSize, side <= 0 {
            throw .invalidLimits("thumbnailSize must be positive, got \(side)")
        }
    }

    /// Refuses a header size over the budget before anything is allocated (overflow-safe).
    static func checkPixelBudget(width: Int, height: Int, budget: Int) throws(ProcessingError) {
        guard width > 0, height > 0 else { throw .codec(.invalidDimensions(width: width, height: height)) }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        // No real header overflows (PNG's 2^31 - 1 squared fits in 64 bits); a product that does
        // is reported as unusable, since `pixelBudgetExceeded` prints the product.
        if overflow { throw .codec(.invalidDimensions(width: width, height: height)) }
        if pixels > budget {
            throw .codec(.pixelBudgetExceeded(width: width, height: height, budget: budget))
        }
    }

    /// The orientation the image's metadata gives: a JPEG's APP1 Exif, a PNG's `eXIf` or a
    /// WebP's `EXIF` chunk; where there is no Exif, `tiff:Orientation` in its XMP. A malformed Exif block is an
    /// error in strict mode and a warning (image treated as upright) otherwise.
    ///
    /// HEIC, HEIF and AVIF are always `.up` here: libheif applies the `irot`/`imir` (and `clap`)
    /// transform properties when it decodes, so its pixels and `readInfo` size are already
    /// upright. ISO/IEC 23008-12 makes those properties authoritative, and MIAF says an Exif
    /// Orientation in such a file is informative only; applying it as well would rotate twice.
    static func orientation(of input: EncodedInput, info: ImageInfo, strict: Bool, log: inout ProcessingLog)
        throws(ProcessingError) -> Orientation
    {
        if [.heic, .heif, .avif].contains(input.format) { return .up }
        do {
            if let jpeg = input.jpeg { return try ExifOrientation.read(jpeg: jpeg) }
            if let exif = info.exif { return try ExifOrientation.read(tiff: exif) }
        } catch {
            if strict { throw .exif(error) }
            log.warnings.append("\(error); treated as upright")
            return .up
        }
        guard let fromXMP = info.xmp.flatMap(XMPOrientation.read) else { return .up }
        log.orientationFromXMP = true
        return fromXMP
    }

    /// The decoder's ICC profile when it describes the decoded pixels (`layout`); a dropped
    /// profile (CMYK on RGB pixels) is logged.
    static func profile(_ iccProfile: [UInt8]?, for layout: PixelBuffer.Layout, _ log: inout ProcessingLog)
        -> [UInt8]?
    {
        let usable = ICCProfileCheck.usable(iccProfile, for: layout)
        if usable == nil, let profile = iccProfile, !profile.isEmpty {
            let space = ICCProfileCheck.colorSpace(profile)?.trimmingCharacters(in: .whitespaces) ?? "unreadable"
            log.steps.append(
                "dropped the \(space) ICC profile (\(profile.count) bytes): it does not describe \(layout) pixels"
            )
        }
        return usable
    }

    /// The thumbnail: `thumb` (already upright) encoded as JPEG at `thumbnailQuality`, or PNG
    /// when it has real alpha. Whole-buffer encode: bounded by the thumbnail's size.
    ///
    /// A thumbnail is held to the limits of the attachment it stands for: never larger than
    /// `output` (an image the byte cap or the decoded budget shrank gets a thumbnail no larger
    /// than itself, however large `thumbnailSize` is), and never over `byteCap`: a noisy PNG
    /// thumbnail over it is made smaller until it fits.
    func encodeThumbnail(
        _ thumb: PixelBuffer, icc: [UInt8]?, within output: Size, limits: ProcessingLimits, log: inout ProcessingLog
    ) throws(ProcessingError) -> ProcessedImage {
        let requested = Size(width: thumb.width, height: thumb.height)
        let opaque = AlphaChannel.isOpaque(thumb)
        return try fitThumbnail(requested, within: output, limits: limits, log: &log) { size throws(CodecError) in
            let pixels = size == requested ? thumb : resizer.resize(thumb, to: size)
            if opaque {
                let data = try JPEGCodec.encode(pixels, quality: limits.thumbnailQuality, iccProfile: icc)
                return ProcessedImage(
                    data: data, format: .jpeg, width: size.width, height: size.height, quality: limits.thumbnailQuality)
            }
            let data = try PNGCodec.encode(pixels, iccProfile: icc)
            return ProcessedImage(data: data, format: .png, width: size.width, height: size.height)
        }
    }

    /// The thumbnail `make` encodes at `requested` (held within `output`), made smaller (×0.75
    /// a step) while it is over `byteCap`, and its step logged: the one loop behind
    /// `encodeThumbnail` and the planar route's thumbnail.
    func fitThumbnail(
        _ requested: Size, within output: Size, limits: ProcessingLimits, log: inout ProcessingLog,
        _ make: (Size) throws(CodecError) -> ProcessedImage
    ) throws(ProcessingError) -> ProcessedImage {
        var size = requested
        if size.width > output.width || size.height > output.height {
            size = FitBox.fit(requested, in: output)
        }
        do {
            while true {
                let image = try make(size)
                if image.data.count > limits.byteCap, size.width * size.height > 1 {
                    size = TargetSize.shrunk(size, by: 0.75, aspectOf: requested)
                    continue
                }
                var step = "thumbnail \(size.width)x\(size.height) "
                step += image.format == .jpeg ? "jpeg q\(image.quality ?? limits.thumbnailQuality)" : "png"
                if size != requested {
                    step += " (held to the attachment's \(output.width)x\(output.height) and \(limits.byteCap) bytes)"
                }
                log.steps.append(step)
                return image
            }
        } catch {
            throw .codec(error)
        }
    }
}
