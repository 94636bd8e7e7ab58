/// Decides an ISO base media file's format (HEIC, HEIF, AVIF, MP4, M4A, M4V, MOV) from its `ftyp`
/// box: the major brand first, then the compatible brands.
///
///     ISOBaseMediaBrands.format(major: "mif1", compatible: ["mif1", "heic"])  // .heic
///
/// Decisions written down here:
/// - A generic major brand (`mif1`, `msf1`, `isom`...) defers to a more specific compatible brand,
///   so `mif1` + `heic` is HEIC and `mif1` + `avif` is AVIF; bare `mif1` is HEIF.
/// - 3GPP (`3gp4`, `3g2a`...) is treated as MP4: it is the same ISO container, iOS plays it, and
///   MediaFormat has no 3GP case. The brand is kept in `detail`.
enum ISOBaseMediaBrands {
    static let heic: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"]
    static let avif: Set<String> = ["avif", "avis"]
    static let heif: Set<String> = ["mif1", "msf1", "mif2", "miaf"]
    static let m4a: Set<String> = ["M4A ", "M4B ", "M4P "]
    static let m4v: Set<String> = ["M4V ", "M4VH", "M4VP"]
    static let mov: Set<String> = ["qt  "]
    static let mp4: Set<String> = [
        "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9", "mp41", "mp42", "mp71",
        "dash", "avc1", "mmp4", "msnv", "ndas", "f4v ", "f4p ", "XAVC", "MSNV", "3gp4", "3gp5", "3gp6",
        "3gp7", "3gp8", "3gp9", "3gg6", "3ge6", "3ge7", "3gs7", "3g2a", "3g2b", "3g2c", "kddi",
    ]
    /// Brands that name an image or video sequence rather than a still image.
    static let sequences: Set<String> = ["avis", "msf1", "hevc", "hevx", "hevm", "hevs"]

    /// The format a single brand names, if any.
    static func format(of brand: String) -> MediaFormat? {
        if heic.contains(brand) { return .heic }
        if avif.contains(brand) { return .avif }
        if heif.contains(brand) { return .heif }
        if m4a.contains(brand) { return .m4a }
        if m4v.contains(brand) { return .m4v }
        if mov.contains(brand) { return .mov }
        if mp4.contains(brand) { return .mp4 }
        return nil
    }

    /// Major brand wins unless it is generic; then the most specific compatible brand.
    static func format(major: String, compatible: [String]) -> MediaFormat {
        let generic: Set<MediaFormat> = [.heif, .mp4]
        let majorFormat = format(of: major)
        if let majorFormat, !generic.contains(majorFormat) { return majorFormat }
        let found = compatible.compactMap(format(of:))
        // Specific image codecs over the generic HEIF structure; specific Apple variants over MP4.
        let preference: [MediaFormat] =
            majorFormat == .heif
            ? [.avif, .heic, .heif] : [.avif, .heic, .m4a, .m4v, .mov, .heif, .mp4]
        for candidate in preference where found.contains(candidate) {
            // An MP4 whose compatible list merely mentions an image brand is still a movie.
            if majorFormat == .mp4, candidate == .heif { continue }
            return candidate
        }
        return majorFormat ?? (found.isEmpty ? .unknown : .mp4)
    }

    /// Major and compatible brands from an `ftyp` box at `offset`, read as far as `bytes` allow.
    static func brands(in bytes: [UInt8], boxAt offset: Int) -> (major: String, compatible: [String])? {
        let reader = ByteReader(bytes)
        guard let size = try? reader.uint32(at: offset, .big), let major = try? reader.ascii(at: offset + 8, count: 4)
        else {
            return nil
        }
        let end = min(bytes.count, size >= 16 ? offset + Int(size) : bytes.count)
        var compatible: [String] = []
        var i = offset + 16
        while i + 4 <= end, compatible.count < 64 {
            if let brand = try? reader.ascii(at: i, count: 4) { compatible.append(brand) }
            i += 4
        }
        return (major, compatible)
    }
}
