/// One row of the magic-byte table: a byte pattern with wildcards (`nil`) at an offset.
///
///     MagicSignature(.webp, "RIFF????WEBP")   // '?' is a wildcard
///
/// A row names a `Family`: either a format outright or a container whose format is decided by
/// reading further (ISO-BMFF brands, legacy QuickTime atoms).
struct MagicSignature: Sendable {
    enum Family: Sendable, Hashable {
        case format(MediaFormat)
        /// `ftyp` box: the brands decide.
        case isoBaseMedia
        /// A QuickTime file without `ftyp`, starting with a classic atom.
        case quickTimeAtom
    }

    let family: Family
    let offset: Int
    let pattern: [UInt8?]

    init(_ family: Family, offset: Int = 0, _ pattern: [UInt8?]) {
        self.family = family
        self.offset = offset
        self.pattern = pattern
    }

    init(_ format: MediaFormat, offset: Int = 0, _ pattern: [UInt8?]) {
        self.init(.format(format), offset: offset, pattern)
    }

    /// ASCII pattern; `?` is a wildcard byte.
    init(_ family: Family, offset: Int = 0, ascii: String) {
        self.init(family, offset: offset, ascii.utf8.map { $0 == UInt8(ascii: "?") ? nil : $0 })
    }

    init(_ format: MediaFormat, offset: Int = 0, ascii: String) {
        self.init(.format(format), offset: offset, ascii: ascii)
    }

    var length: Int { offset + pattern.count }

    func matches(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= length else { return false }
        for (k, expected) in pattern.enumerated() {
            if let expected, bytes[offset + k] != expected { return false }
        }
        return true
    }
}

extension MagicSignature {
    /// The table, most specific first. Formats without a fixed signature (bare MPEG audio frames,
    /// MPEG-TS, SVG text) are found by `FormatDetector`'s heuristics after the table.
    static let table: [MagicSignature] = [
        MagicSignature(.jpeg, [0xFF, 0xD8, 0xFF]),
        MagicSignature(.png, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
        MagicSignature(.gif, ascii: "GIF87a"),
        MagicSignature(.gif, ascii: "GIF89a"),
        MagicSignature(.webp, ascii: "RIFF????WEBP"),
        MagicSignature(.wav, ascii: "RIFF????WAVE"),
        MagicSignature(.avi, ascii: "RIFF????AVI "),
        MagicSignature(.aiff, ascii: "FORM????AIFF"),
        MagicSignature(.aiff, ascii: "FORM????AIFC"),
        MagicSignature(.isoBaseMedia, offset: 4, ascii: "ftyp"),
        MagicSignature(.quickTimeAtom, offset: 4, ascii: "moov"),
        MagicSignature(.quickTimeAtom, offset: 4, ascii: "mdat"),
        MagicSignature(.quickTimeAtom, offset: 4, ascii: "wide"),
        MagicSignature(.quickTimeAtom, offset: 4, ascii: "free"),
        MagicSignature(.quickTimeAtom, offset: 4, ascii: "skip"),
        MagicSignature(.quickTimeAtom, offset: 4, ascii: "pnot"),
        MagicSignature(.tiff, [0x49, 0x49, 0x2A, 0x00]),
        MagicSignature(.tiff, [0x4D, 0x4D, 0x00, 0x2A]),
        MagicSignature(.pdf, ascii: "%PDF-"),
        MagicSignature(.jp2, [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]),
        MagicSignature(.jp2, [0xFF, 0x4F, 0xFF, 0x51]),
        MagicSignature(.flac, ascii: "fLaC"),
        MagicSignature(.ogg, ascii: "OggS"),
        // EBML: Matroska, or WebM when its DocType says so (`FormatDetector.confirm`).
        MagicSignature(.mkv, [0x1A, 0x45, 0xDF, 0xA3]),
        MagicSignature(.mp3, ascii: "ID3"),
        MagicSignature(.mpeg, [0x00, 0x00, 0x01, 0xBA]),
        MagicSignature(.mpeg, [0x00, 0x00, 0x01, 0xB3]),
        // Weak signatures: confirmed by a header check in `FormatDetector`.
        MagicSignature(.bmp, ascii: "BM"),
        MagicSignature(.ico, [0x00, 0x00, 0x01, 0x00]),
        MagicSignature(.ico, [0x00, 0x00, 0x02, 0x00]),
    ]
}
