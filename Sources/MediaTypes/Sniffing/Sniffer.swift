import Foundation

/// Decides what a file is from its bytes, never from its name, and reads the header facts.
///
///     let sniffed = try Sniffer.sniff(bytes)        // .jpeg, 5760x3840, "progressive"
///     Sniffer.identify(prefix: Array(bytes.prefix(Sniffer.identifyPrefixLength)))  // .jpeg
///
/// Detection runs a magic-byte table with wildcards (`MagicSignature.table`), confirms weak
/// signatures, resolves ISO-BMFF brands, then tries the formats without a fixed signature
/// (MPEG-TS, bare MPEG audio frames, SVG text). A per-format parser then reads only the header
/// it needs.
///
/// Formats iOS refuses are recognised so `verify` can name them (FLAC, Ogg, WebM, Matroska,
/// JPEG 2000, BMP, TIFF, SVG, QuickTime with its codecs). Formats not recognised (FLV, WMV,
/// JPEG XL, BPG, MNG, TGA, PNM, XBM, ZIP, HTML...) come out `.unknown`; that is a result, not an
/// error.
public enum Sniffer {
    /// How many leading bytes `identify(prefix:)` looks at.
    public static let identifyPrefixLength = 64

    /// Format and header facts.
    ///
    /// - Returns: `.unknown` format for bytes no signature matches.
    /// - Throws: `SniffError` when a recognised format's header lies: zero or impossible
    ///   dimensions, a chunk or box past the end, a field the format does not allow.
    /// - Complexity: reads headers only, except GIF (block walk) and animated WebP (chunk walk),
    ///   which are linear in the file size without decoding anything.
    public static func sniff(_ bytes: [UInt8]) throws(SniffError) -> SniffedType {
        let format = FormatDetector.detect(bytes)
        switch format {
        case .jpeg: return try JPEGHeader.sniff(bytes)
        case .png: return try PNGHeader.sniff(bytes)
        case .gif: return try GIFHeader.sniff(bytes)
        case .webp: return try WebPHeader.sniff(bytes)
        case .bmp: return try BMPHeader.sniff(bytes)
        case .ico: return try ICOHeader.sniff(bytes)
        case .heic, .heif, .avif, .mp4, .m4a, .m4v, .mov: return try ISOBaseMediaHeader.sniff(bytes, as: format)
        case .tiff: return try TIFFHeader.sniff(bytes)
        case .mp3: return SniffedType(format: .mp3, detail: ID3Tag.end(of: bytes) != nil ? "ID3v2" : nil)
        case .aiff: return SniffedType(format: .aiff, detail: bytes.count >= 12 && bytes[11] == 0x43 ? "AIFC" : "AIFF")
        case .mpeg:
            return SniffedType(
                format: .mpeg, detail: bytes.count >= 4 && bytes[3] == 0xB3 ? "elementary video" : "program stream")
        case .svg, .pdf, .wav, .avi, .mpegts, .jp2, .flac, .ogg, .webm, .mkv, .unknown: return SniffedType(format: format)
        }
    }

    /// Format and header facts from `Data`.
    public static func sniff(_ data: Data) throws(SniffError) -> SniffedType {
        try sniff([UInt8](data))
    }

    /// How many leading bytes `sniff` needs for the format these first bytes start, when its
    /// facts all live in a header; nil when `sniff` may read the whole file (images: a GIF's
    /// block walk, an animated WebP's chunks, a HEIF's item boxes) or the format is unknown.
    ///
    ///     Sniffer.headerWindow(prefix: mp4Start)   // 1_048_576: a movie is judged by its ftyp box
    ///
    /// Audio and video are passed through, never decoded, so a 50 MB movie need not be read into
    /// memory to be judged: its `ftyp` box, RIFF or FORM header, or MPEG packets come first. An
    /// MP3's ID3 tag (cover art can be megabytes) is skipped by its declared size, so the window
    /// reaches past it to the first audio frame.
    package static func headerWindow(prefix: [UInt8]) -> Int? {
        let format = identify(prefix: prefix)
        guard let category = format.category, category != .image else { return nil }
        let window = 1 << 20
        if format == .mp3, let tagEnd = ID3Tag.end(of: prefix) {
            // The zero padding `formatAfterTag` skips, then a frame and the one after it.
            return max(window, tagEnd + 65_536 + 8_192)
        }
        return window
    }

    /// How many leading bytes `sniff` reads of a JPEG: up to the end of its start-of-frame
    /// segment, where `JPEGHeader`'s walk stops, so `sniff` of that prefix says exactly what
    /// `sniff` of the whole file says. Walks `bytes` in place (a download need not be copied to
    /// be judged); nil when they are not a JPEG or the walk fails before a start-of-frame
    /// (`sniff` of the whole file then words the failure).
    ///
    ///     Sniffer.jpegHeaderWindow(photo)   // 65_871: Exif and ICC segments, then SOF0
    package static func jpegHeaderWindow(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let sof = try? JPEGSegments.read(bytes, skippingExtraneousBytes: true, stopAfter: \.isStartOfFrame).last,
            sof.isStartOfFrame
        else { return nil }
        return sof.payloadOffset + sof.payloadLength
    }

    /// The format alone from the first bytes (up to `identifyPrefixLength` are used). Never
    /// throws; used to tighten a download's byte cap before the body arrives. Formats decided
    /// deeper in the file (an SVG root element after a long comment, an MP3 after a large ID3
    /// tag) are answered as well as the prefix allows: an ID3 tag says MP3.
    public static func identify(prefix: [UInt8]) -> MediaFormat {
        FormatDetector.detect(Array(prefix.prefix(identifyPrefixLength)))
    }
}
