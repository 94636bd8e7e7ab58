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
    public enum Form: String, Sendable { case coarse, mime, uti, fileExtension }

    /// The value as it was given.
    public let raw: String
    public let form: Form
    /// The category the value implies, when it implies one.
    public let category: MediaCategory?
    /// The formats the value names; empty means any format of `category`.
    public let formats: Set<MediaFormat>

    public init(raw: String, form: Form, category: MediaCategory?, formats: Set<MediaFormat>) {
        self.raw = raw
        self.form = form
        self.category = category
        self.formats = formats
    }

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
