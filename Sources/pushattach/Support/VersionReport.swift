import PushAttach

/// What `pushattach --version` prints: the tool's version on the first line (for scripts), then
/// the C libraries linked in, as they report themselves at run time (for bug reports).
///
///     pushattach 0.2.0
///     libpng 1.6.39
///     libwebp 1.2.4
///     libheif 1.15.1
///     libcurl 7.88.1 (OpenSSL/3.0.15 zlib/1.2.13 …)
enum VersionReport {
    static func lines(version: String) -> [String] {
        [
            "pushattach \(version)", "libpng \(LinkedLibraries.png)", "libwebp \(LinkedLibraries.webp)",
            "libheif \(LinkedLibraries.heif)", curl(LinkedLibraries.curl),
        ]
    }

    /// "libcurl/7.88.1 OpenSSL/3.0.15 zlib/1.2.13" as "libcurl 7.88.1 (OpenSSL/3.0.15 zlib/1.2.13)".
    static func curl(_ text: String) -> String {
        let parts = text.split(separator: " ")
        guard let first = parts.first, first.hasPrefix("libcurl/") else { return text }
        let version = "libcurl \(first.dropFirst("libcurl/".count))"
        return parts.count > 1 ? "\(version) (\(parts.dropFirst().joined(separator: " ")))" : version
    }
}
