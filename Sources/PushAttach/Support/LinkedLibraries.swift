import Fetch
import ImageCodecs

/// The C libraries linked in, as they report themselves at run time (`pushattach --version`):
/// what a bug report should name.
///
///     LinkedLibraries.heif   // "1.15.1"
public enum LinkedLibraries {
    /// libpng's version ("1.6.39").
    public static var png: String { CodecVersions.png }
    /// libwebp's decoder version ("1.2.4").
    public static var webp: String {
        let packed = CodecVersions.webpDecoder
        return "\((packed >> 16) & 0xFF).\((packed >> 8) & 0xFF).\(packed & 0xFF)"
    }
    /// libheif's version ("1.15.1"), the HEIC/HEIF/AVIF decoder.
    public static var heif: String { CodecVersions.heif }
    /// libcurl's version line ("libcurl/7.88.1 OpenSSL/3.0.15 zlib/1.2.13 …").
    public static var curl: String { FetchVersion.curl }
}
