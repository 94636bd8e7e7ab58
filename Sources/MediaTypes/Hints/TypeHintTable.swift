/// The lookup tables behind `TypeHint.parse`: coarse words, MIME types, UTIs and extensions,
/// built from `MediaFormat`'s table plus the aliases seen in payloads and HTTP headers.
enum TypeHintTable {
    typealias Meaning = (category: MediaCategory?, formats: Set<MediaFormat>)

    static let coarse: [String: MediaCategory] = [
        "image": .image, "images": .image, "photo": .image, "picture": .image, "gif": .image,
        "video": .movie, "movie": .movie, "videos": .movie,
        "audio": .audio, "sound": .audio,
    ]

    /// MIME aliases on top of each format's canonical MIME type.
    static let mimeAliases: [String: Set<MediaFormat>] = [
        "image/jpg": [.jpeg], "image/pjpeg": [.jpeg], "image/x-png": [.png], "image/apng": [.png],
        "image/vnd.mozilla.apng": [.png], "image/heic-sequence": [.heic], "image/heif-sequence": [.heif],
        "image/x-ms-bmp": [.bmp], "image/x-bmp": [.bmp], "image/x-icon": [.ico], "image/tif": [.tiff],
        "audio/mp3": [.mp3], "audio/x-mp3": [.mp3], "audio/mpeg3": [.mp3], "audio/x-mpeg": [.mp3], "audio/mpg": [.mp3],
        "audio/x-wav": [.wav], "audio/wave": [.wav], "audio/vnd.wave": [.wav], "audio/x-pn-wav": [.wav],
        "audio/x-aiff": [.aiff], "audio/aifc": [.aiff],
        "audio/x-m4a": [.m4a], "audio/m4a": [.m4a], "audio/aac": [.m4a], "audio/x-m4b": [.m4a],
        "video/mp4": [.mp4, .m4v], "video/x-m4v": [.m4v, .mp4], "application/mp4": [.mp4, .m4v, .m4a],
        "video/3gpp": [.mp4], "video/3gpp2": [.mp4],
        "video/mpeg": [.mpeg], "video/mpg": [.mpeg], "video/x-mpeg": [.mpeg], "video/mpeg2": [.mpeg],
        "video/avi": [.avi], "video/msvideo": [.avi], "video/vnd.avi": [.avi],
        "video/mp2t": [.mpegts],
    ]

    static func mime(_ essence: String) -> Meaning? {
        if let formats = mimeAliases[essence] { return (formats.first?.category, formats) }
        if let format = MediaFormat.allCases.first(where: { $0 != .unknown && $0.mimeType == essence }) {
            return (format.category, [format])
        }
        switch essence {
        case "image/*": return (.image, [])
        case "video/*": return (.movie, [])
        case "audio/*": return (.audio, [])
        default: return nil
        }
    }

    static let utiAliases: [String: Meaning] = [
        "public.image": (.image, []), "public.movie": (.movie, []), "public.video": (.movie, []),
        "public.audio": (.audio, []), "public.audiovisual-content": (.movie, []),
        "public.mpeg-2-video": (.movie, [.mpeg]), "public.aifc-audio": (.audio, [.aiff]),
        "public.3gpp": (.movie, [.mp4]), "public.3gpp2": (.movie, [.mp4]),
        "public.mpeg-4": (.movie, [.mp4, .m4v]), "com.apple.m4a-audio": (.audio, [.m4a]),
        "org.webmproject.webp": (.image, [.webp]), "com.microsoft.windows-bitmap": (.image, [.bmp]),
    ]

    static func uti(_ value: String) -> Meaning? {
        if let meaning = utiAliases[value] { return meaning }
        if let format = MediaFormat.allCases.first(where: { $0 != .unknown && $0.uti.lowercased() == value }) {
            return (format.category, [format])
        }
        return nil
    }

    static func fileExtension(_ value: String) -> Meaning? {
        if ["3gp", "3gpp", "3g2"].contains(value) { return (.movie, [.mp4]) }
        let formats = Set(MediaFormat.allCases.filter { $0 != .unknown && $0.allExtensions.contains(value) })
        guard let first = formats.first else { return nil }
        return (first.category, formats)
    }
}
