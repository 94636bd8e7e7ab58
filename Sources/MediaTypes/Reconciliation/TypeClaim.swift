/// Something other than the bytes that says what a file is.
///
///     TypeClaim(.mediaType, "video")
///     TypeClaim(.contentType, "image/png; charset=binary")
///     TypeClaim(.urlExtension, "jpg")
public struct TypeClaim: Sendable, Hashable {
    /// Where a claim was found. The raw value names it in messages.
    public enum Source: String, Sendable {
        /// The payload's `media_type` field, in any form ``TypeHint`` understands.
        case mediaType = "media_type"
        /// The HTTP `Content-Type` response header of the download.
        case contentType = "Content-Type"
        /// The extension of the last path component of the source URL.
        case urlExtension = "URL extension"
        /// The extension of a local file's name.
        case fileExtension = "file extension"
    }

    /// Where the claim was found.
    public let source: Source
    /// The value as found: a hint in any form, a Content-Type header, or an extension (with or
    /// without the dot).
    public let value: String

    /// A claim `value` found at `source`, e.g. `TypeClaim(.contentType, "image/png")`.
    public init(_ source: Source, _ value: String) {
        self.source = source
        self.value = value
    }

    /// The labelled spelling of ``init(_:_:)``.
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
