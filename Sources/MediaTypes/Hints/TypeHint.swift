/// A `media_type` value from a payload, understood in any of the four forms seen in the wild.
///
///     TypeHint.parse("video")?.category         // .movie
///     TypeHint.parse("image/JPG")?.formats      // [.jpeg]
///     TypeHint.parse("public.png")?.form        // .uti
///     TypeHint.parse(".gif")?.admits(.gif)      // true
///
/// Parsing is case-insensitive and trims whitespace; MIME parameters (`; charset=...`) are
/// ignored. `nil` means the value names nothing we know.
public struct TypeHint: Sendable, Hashable {
    /// Which of the four spellings a hint was written in.
    public enum Form: String, Sendable {
        /// A category word such as `"image"`, `"photo"`, `"video"`, `"movie"` or `"audio"`
        /// (and `"gif"`, which also names the format).
        case coarse
        /// A MIME type such as `"image/jpeg"` or a wildcard such as `"image/*"`; parameters
        /// after `;` are ignored.
        case mime
        /// A Uniform Type Identifier such as `"public.png"`.
        case uti
        /// A file extension, with or without its leading dot: `".jpg"`, `"jpg"`.
        case fileExtension
    }

    /// The value as it was given.
    public let raw: String
    /// The spelling `raw` was recognised as.
    public let form: Form
    /// The category the value implies, when it implies one.
    public let category: MediaCategory?
    /// The formats the value names; empty means any format of `category`.
    public let formats: Set<MediaFormat>

    /// A hint with every field given; use ``parse(_:)`` to read one from a payload value.
    public init(raw: String, form: Form, category: MediaCategory?, formats: Set<MediaFormat>) {
        self.raw = raw
        self.form = form
        self.category = category
        self.formats = formats
    }

    /// Reads a `media_type` value in any of the four forms.
    ///
    ///     TypeHint.parse(" Image/JPEG; q=1 ")?.formats  // [.jpeg]
    ///     TypeHint.parse("application/x-foo")           // nil
    ///
    /// - Returns: the hint, or `nil` when `raw` is empty or names no category or format we know.
    public static func parse(_ raw: String) -> TypeHint? {
        let value = raw.trimmingWhitespace.lowercased()
        guard !value.isEmpty else { return nil }
        if let category = TypeHintTable.coarse[value] {
            let formats: Set<MediaFormat> = value == "gif" ? [.gif] : []
            return TypeHint(raw: raw, form: .coarse, category: category, formats: formats)
        }
        if value.contains("/") {
            let essence = String(value.prefix { $0 != ";" }).trimmingWhitespace
            return TypeHintTable.mime(essence).map {
                TypeHint(raw: raw, form: .mime, category: $0.category, formats: $0.formats)
            }
        }
        if value.hasPrefix(".") {
            return TypeHintTable.fileExtension(String(value.dropFirst())).map {
                TypeHint(raw: raw, form: .fileExtension, category: $0.category, formats: $0.formats)
            }
        }
        if value.contains(".") {
            return TypeHintTable.uti(value).map {
                TypeHint(raw: raw, form: .uti, category: $0.category, formats: $0.formats)
            }
        }
        return TypeHintTable.fileExtension(value).map {
            TypeHint(raw: raw, form: .fileExtension, category: $0.category, formats: $0.formats)
        }
    }

    /// Whether bytes of `format` are what this hint describes.
    public func admits(_ format: MediaFormat) -> Bool {
        if !formats.isEmpty { return formats.contains(format) }
        if let category { return format.category == category }
        return true
    }

    /// What the hint says, for messages: a format name, or a category.
    ///
    ///     TypeHint.parse("video")!.summary       // "movie"
    ///     TypeHint.parse("image/png")!.summary   // "PNG"
    public var summary: String {
        if !formats.isEmpty {
            return formats.sorted { $0.rawValue < $1.rawValue }.map(\.displayName).joined(separator: " or ")
        }
        return category?.rawValue ?? "any media"
    }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let first = s.first, first.isWhitespace { s = s.dropFirst() }
        while let last = s.last, last.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
