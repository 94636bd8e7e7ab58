internal import CTurboJPEG
internal import CPNG
internal import CWebP

/// Versions of the C codecs linked in, for `--version` and bug reports.
public enum CodecVersions {
    public static var webpDecoder: Int { Int(WebPGetDecoderVersion()) }
    public static var png: String { String(cString: png_get_libpng_ver(nil)) }
}
