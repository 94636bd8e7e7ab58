import Foundation
import ImageCodecs
import MediaTypes

extension ImageProcessor {
    static func validate(_ limits: ProcessingLimits) throws(ProcessingError) {
        if limits.byteCap <= 0 { throw .invalidLimits("byteCap must be positive, got \(limits.byteCap)") }
        if limits.maxLongSide <= 0 { throw .invalidLimits("maxLongSide must be positive, got \(limits.maxLongSide)") }
        if limits.memoryBudget < 4 {
            throw .invalidLimits("memoryBudget must hold one pixel, got \(limits.memoryBudget)")
        }
        if limits.pixelBudget <= 0 { throw .invalidLimits("pixelBudget must be positive, got \(limits.pixelBudget)") }
        if !(1...100).contains(limits.quality) || !(1...100).contains(limits.qualityFloor)
            || !(1...100).contains(limits.thumbnailQuality)
        {
            throw .invalidLimits("qualities must be in 1...100")
        }
        if let side = limits.thumbnailSize, side <= 0 {
            throw .invalidLimits("thumbnailSize must be positive, got \(side)")
        }
    }

    /// Refuses a header size over the budget before anything is allocated (overflow-safe).
    static func checkPixelBudget(width: Int, height: Int, budget: Int) throws(ProcessingError) {
        guard width > 0, height > 0 else { throw .codec(.invalidDimensions(width: width, height: height)) }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > budget {
            throw .codec(.pixelBudgetExceeded(width: width, height: height, budget: budget))
        }
    }

    /// The Exif orientation of a JPEG (`.up` for other formats). A malformed Exif block is an
    /// error in strict mode and a warning (image treated as upright) otherwise.
    static func orientation(of data: Data, format: MediaFormat, strict: Bool, log: inout ProcessingLog)
        throws(ProcessingError) -> Orientation
    {
        guard format == .jpeg else { return .up }
        do {
            return try ExifOrientation.read(jpeg: [UInt8](data))
        } catch {
            if strict { throw .exif(error) }
            log.warnings.append("\(error); treated as upright")
            return .up
        }
    }

    /// One decode at the smallest codec scale whose output covers `cover` (an upright size).
    func decode(
        _ data: Data, format: MediaFormat, stored: Size, covering cover: Size, _ orientation: Orientation,
        _ limits: ProcessingLimits, _ log: inout ProcessingLog
    ) throws(ProcessingError) -> DecodedImage {
        let box = orientation.swapsDimensions ? (cover.height, cover.width) : (cover.width, cover.height)
        let options = DecodeOptions(minimumSize: box, pixelBudget: limits.pixelBudget, strict: limits.strict)
        let decoded: DecodedImage
        do { decoded = try ImageCodecs.decode(data, format: format, options: options) } catch { throw .codec(error) }
        let w = decoded.pixels.width, h = decoded.pixels.height
        if w == stored.width && h == stored.height {
            log.steps.append("decoded \(format.rawValue) \(w)x\(h)")
        } else {
            let scale = Self.scaleName(stored: stored, decoded: Size(width: w, height: h), format: format)
            log.steps.append("decoded at \(scale): \(stored.width)x\(stored.height) -> \(w)x\(h)")
        }
        for warning in decoded.warnings { log.warnings.append("\(format.rawValue) decode: \(warning)") }
        return decoded
    }

    /// "1/8" for a JPEG DCT scale, "0.36x" otherwise.
    static func scaleName(stored: Size, decoded: Size, format: MediaFormat) -> String {
        if format == .jpeg {
            for num in 1...8
            where (stored.width * num + 7) / 8 == decoded.width
                && (stored.height * num + 7) / 8 == decoded.height
            {
                var n = num, d = 8
                while n % 2 == 0 && d % 2 == 0 {
                    n /= 2
                    d /= 2
                }
                return "\(n)/\(d)"
            }
        }
        let factor = Double(decoded.width) / Double(stored.width)
        return "\((factor * 100).rounded() / 100)x"
    }

    /// The thumbnail: `pixels` resized (and turned upright) to `size`, JPEG at
    /// `thumbnailQuality`, or PNG when the pixels have real alpha.
    func makeThumbnail(
        from pixels: PixelBuffer, orientation: Orientation, size: Size, icc: [UInt8]?, limits: ProcessingLimits,
        log: inout ProcessingLog
    ) throws(ProcessingError) -> ProcessedImage {
        let thumb = resizer.resize(pixels, to: size, orientation: orientation)
        let opaque = AlphaChannel.isOpaque(thumb)
        do {
            if opaque {
                let data = try JPEGCodec.encode(thumb, quality: limits.thumbnailQuality, iccProfile: icc)
                log.steps.append("thumbnail \(size.width)x\(size.height) jpeg q\(limits.thumbnailQuality)")
                return ProcessedImage(
                    data: data, format: .jpeg, width: size.width, height: size.height, quality: limits.thumbnailQuality)
            }
            let data = try PNGCodec.encode(thumb, iccProfile: icc)
            log.steps.append("thumbnail \(size.width)x\(size.height) png")
            return ProcessedImage(data: data, format: .png, width: size.width, height: size.height)
        } catch {
            throw .codec(error)
        }
    }
}
