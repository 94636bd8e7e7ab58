/// Something other than the bytes that says what a file is.
///
///     TypeClaim(.mediaType, "video")
///     TypeClaim(.contentType, "image/png; charset=binary")
///     TypeClaim(.urlExtension, "jpg")
public struct TypeClaim: Sendable, Hashable {
    public enum Source: String, Sendable {
        case mediaType = "media_type"
        case contentType = "Content-Type"
        case urlExtension = "URL extension"
        case fileExtension = "file extension"
    }

    public let source: Source
    /// The value as found: a hint in any form, a Content-Type header, or an extension (with or
    /// without the dot).
    public let value: String

    public init(_ source: Source, _ value: String) {
        self.source = source
        self.value = value
    }

    public init(source: Source, value: String) { self.init(source, value) }

    /// Values that carry no claim at all: empty, or the generic binary types.
    var isEmptyClaim: Bool {
        let essence = String(value.trimmingWhitespace.lowercased().prefix { $0 != ";" }).trimmingWhitespace
        return essence.isEmpty || essence == "."
            || ["application/octet-stream", "binary/octet-stream", "application/unknown"].contains(essence)
    }

    /// The claim read as a hint; extensions are always read as extensions.
    var hint: TypeHint? {
        switch source {
        case .mediaType, .contentType:
            return TypeHint.parse(value)
        case .urlExtension, .fileExtension:
            let trimmed = value.trimmingWhitespace
            return TypeHint.parse(trimmed.hasPrefix(".") ? trimmed : "." + trimmed)
        }
    }
}
