/// Whether a file is media to judge, from its first bytes and its name, before it is read: the
/// one rule for a folder's files (in `verify` and `prepare` alike), an INPUT argument and a path
/// on standard input.
///
///     FileKind.of(prefix: jpegStart, fileExtension: "bin")          // .media: the bytes say JPEG
///     FileKind.of(prefix: Array("<html>".utf8), fileExtension: "jpg") // .media: the name says image
///     FileKind.of(prefix: Array("TODO\n".utf8), fileExtension: "txt") // .notMedia(.text)
///
/// Media when the bytes are a format we know (damaged ones included) or the name's extension is
/// a media format's: such a file is judged, and an HTML page named `.jpg` is refused as not
/// media (101), as iOS would refuse it. Anything else (a README, a list, a PDF) is not media and
/// is passed over, with what it looks like, never with its text.
public enum FileKind: Sendable, Hashable {
    /// Bytes or a name of a media format: judge it.
    case media
    /// Neither: what the bytes look like.
    case notMedia(ContentGuess)

    /// The kind of a file whose first bytes are `prefix` (up to `ContentGuess.prefixLength` are
    /// used) and whose name's extension is `fileExtension` (nil or "" for none).
    public static func of(prefix: some Collection<UInt8>, fileExtension: String?) -> FileKind {
        let head = Array(prefix.prefix(ContentGuess.prefixLength))
        let format = Sniffer.identify(prefix: head)
        if format != .unknown, format != .pdf { return .media }
        if DamagedSignature.format(of: Array(head.prefix(64))) != nil { return .media }
        if let fileExtension, isMediaExtension(fileExtension) { return .media }
        return .notMedia(format == .pdf ? .pdf : ContentGuess.of(head))
    }

    /// True when `fileExtension` (with or without its dot, any case) names a media format:
    /// `jpg`, `heic`, `mp4`, `wav` …; false for `txt`, `pdf`, `json` and no extension.
    public static func isMediaExtension(_ fileExtension: String) -> Bool {
        var ext = fileExtension.trimmingWhitespace.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        guard !ext.isEmpty else { return false }
        return mediaExtensions.contains(ext)
    }

    /// Every extension of every media format (not PDF, whose bytes are no media).
    static let mediaExtensions: Set<String> = Set(
        MediaFormat.allCases.filter { $0.category != nil && $0 != .pdf }.flatMap(\.allExtensions))
}
