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
    static func orientation(of input: EncodedInput, info: ImageInfo, strict: Bool, log: inout ProcessingLog)
        throws(ProcessingError) -> Orientation
    {
        do {
            if let jpeg = input.jpeg { return try ExifOrientation.read(jpeg: jpeg) }
            if let exif = info.exif { return try ExifOrientation.read(tiff: exif) }
        } catch {
            if strict { throw .exif(error) }
            log.warnings.append("\(error); treated as upright")
            return .up
        }
        guard let fromXMP = info.xmp.flatMap(XMPOrientation.read) else { return .up }
        log.orientationSource = "XMP"
        return fromXMP
    }

    /// The decoded image's ICC profile when it describes the decoded pixels; a dropped
    /// profile (CMYK on RGB pixels) is logged.
    static func profile(_ decoded: DecodedImage, _ log: inout ProcessingLog) -> [UInt8]? {
        let usable = ICCProfileCheck.usable(decoded.iccProfile, for: decoded.pixels.layout)
        if usable == nil, let profile = decoded.iccProfile, !profile.isEmpty {
            let space = ICCProfileCheck.colorSpace(profile)?.trimmingCharacters(in: .whitespaces) ?? "unreadable"
            log.steps.append(
                "dropped the \(space) ICC profile (\(profile.count) bytes): it does not describe \(decoded.pixels.layout) pixels"
            )
        }
        return usable
    }

    /// One decode at the smallest codec scale whose output covers `cover` (an upright size).
    ///
    /// `powerOfTwoScales` keeps JPEG to the 1/2, 1/4, 1/8 scales. It is set for CMYK/YCCK, whose
    /// odd-eighth scaled decodes (3/8, 5/8, 7/8) come out visibly soft: the corpus CMYK photo at
    /// 5/8 has a luma SSIM of 0.87 against a full decode, 0.99 at 3/4 (RGB files stay >= 0.99).
    static func decode(
        _ input: EncodedInput, stored: Size, covering cover: Size, _ orientation: Orientation,
        _ limits: ProcessingLimits, powerOfTwoScales: Bool = false, _ log: inout ProcessingLog
    ) throws(ProcessingError) -> DecodedImage {
        var box = orientation.swapsDimensions ? (cover.height, cover.width) : (cover.width, cover.height)
        if powerOfTwoScales {
            // The smallest 1/d that covers the box; asking for exactly its size makes TurboJPEG pick it.
            for d in [8, 4, 2, 1] {
                let w = (stored.width + d - 1) / d, h = (stored.height + d - 1) / d
                if w >= box.0 && h >= box.1 || d == 1 {
                    box = (w, h)
                    break
                }
            }
        }
        let options = DecodeOptions(minimumSize: box, pixelBudget: limits.pixelBudget, strict: limits.strict)
        let decoded: DecodedImage
        let format = input.format
        do { decoded = try input.decode(options: options) } catch { throw .codec(error) }
        let w = decoded.pixels.width, h = decoded.pixels.height
        if w == stored.width && h == stored.height {
            log.steps.append("decoded \(format.rawValue) \(w)x\(h)")
        } else {
            let scale = Self.scaleName(stored: stored, decoded: Size(width: w, height: h), format: format)
            log.steps.append("decoded at \(scale): \(stored.width)x\(stored.height) -> \(w)x\(h)")
        }
        if let damage = decoded.damage.first {
            guard limits.acceptDamaged else { throw .damaged(format, detail: damage) }
            log.warnings.append("damaged \(format.displayName) used as decoded (damaged images accepted)")
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
