/// Decides the format from leading bytes: the magic table, then confirmation of weak signatures,
/// ISO-BMFF brands, and the heuristics for formats without a fixed signature.
///
///     FormatDetector.detect(bytes)  // .jpeg
///
/// Never throws and never reads past what it is given, so it works on a 64-byte prefix as well as
/// on a whole file. Header facts are left to the per-format parsers.
enum FormatDetector {
    static func detect(_ bytes: [UInt8]) -> MediaFormat {
        for signature in MagicSignature.table where signature.matches(bytes) {
            switch signature.family {
            case .format(let format):
                if let confirmed = confirm(format, bytes) { return confirmed }
            case .isoBaseMedia:
                if let format = isoFormat(bytes, ftypAt: 0) { return format }
            case .quickTimeAtom:
                if let format = quickTime(bytes) { return format }
            }
        }
        if MPEGTransportStream.matches(bytes) { return .mpegts }
        if MPEGAudioFrame.confirmed(bytes, at: 0) != nil { return .mp3 }
        if SVGText.looksLikeSVG(bytes) { return .svg }
        return .unknown
    }

    /// Second look at weak or ambiguous signatures; `nil` when the match was a coincidence.
    private static func confirm(_ format: MediaFormat, _ bytes: [UInt8]) -> MediaFormat? {
        switch format {
        case .mp3: ID3Tag.formatAfterTag(bytes)
        case .bmp: BMPHeader.plausible(bytes) ? .bmp : nil
        case .ico: ICOHeader.plausible(bytes) ? .ico : nil
        // The DocType string sits in the EBML header, within its first few dozen bytes.
        case .mkv: bytes.prefix(64).firstRange(of: Array("webm".utf8)) != nil ? .webm : .mkv
        default: format
        }
    }

    static func isoFormat(_ bytes: [UInt8], ftypAt offset: Int) -> MediaFormat? {
        guard let brands = ISOBaseMediaBrands.brands(in: bytes, boxAt: offset) else { return nil }
        let format = ISOBaseMediaBrands.format(major: brands.major, compatible: brands.compatible)
        return format == .unknown ? nil : format
    }

    /// A QuickTime file without `ftyp`: a classic first atom with a plausible size. A leading
    /// `free`/`skip`/`wide` followed by an `ftyp` defers to the brands.
    private static func quickTime(_ bytes: [UInt8]) -> MediaFormat? {
        let reader = ByteReader(bytes)
        guard let size = try? reader.uint32(at: 0, .big), size == 0 || size == 1 || size >= 8 else { return nil }
        if size >= 8, size <= Int32.max, reader.matches(Array("ftyp".utf8), at: Int(size) + 4) {
            return isoFormat(bytes, ftypAt: Int(size))
        }
        return .mov
    }
}
