/// One line of the manifest: what happened to one input item.
///
///     var entry = ManifestEntry(input: "https://x.test/cat.webp", line: 3, status: .prepared)
///     entry.file = "Images/0AF39F86-…-cat.jpg"; entry.uti = "public.jpeg"
///
/// Encoded with snake_case keys (`input`, `line`, `id`, `status`, `reason`, `file`,
/// `identifier`, `uti`, `format`, `category`, `bytes`, `width`, `height`, `frames`, `sha256`,
/// `transform`, `thumbnail`, `warnings`, `timings` {`download_ms`, `process_ms`, `write_ms`});
/// absent values are written as `null`, never left out, so every entry has the same shape.
///
/// `input` is the URL as the input gave it (for a bad line, the problem's source), `line` its
/// 1-based line in its source; together they identify the entry.
public struct ManifestEntry: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable, Hashable {
        case prepared, rejected, failed
    }

    /// Milliseconds spent per stage.
    public struct Timings: Codable, Sendable, Hashable {
        public var downloadMs: Int
        public var processMs: Int
        public var writeMs: Int

        public init(downloadMs: Int = 0, processMs: Int = 0, writeMs: Int = 0) {
            self.downloadMs = downloadMs
            self.processMs = processMs
            self.writeMs = writeMs
        }

        enum CodingKeys: String, CodingKey {
            case downloadMs = "download_ms", processMs = "process_ms", writeMs = "write_ms"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            downloadMs = try c.decodeIfPresent(Int.self, forKey: .downloadMs) ?? 0
            processMs = try c.decodeIfPresent(Int.self, forKey: .processMs) ?? 0
            writeMs = try c.decodeIfPresent(Int.self, forKey: .writeMs) ?? 0
        }
    }

    public var input: String
    public var line: Int
    public var id: String?
    public var status: Status
    /// Why the item was rejected or failed; nil when prepared.
    public var reason: String?
    /// Relative to the container, e.g. `Images/<UUID>-cat.jpg`.
    public var file: String?
    /// The identifier to give `UNNotificationAttachment` (the UUID in the file name).
    public var identifier: String?
    /// The type hint to pass (`UNNotificationAttachmentOptionsTypeHintKey`).
    public var uti: String?
    public var format: String?
    public var category: String?
    public var bytes: Int?
    public var width: Int?
    public var height: Int?
    public var frames: Int?
    public var sha256: String?
    /// What the engine did, one human-readable step each ("decoded WebP", "resized to 1024×768").
    public var transform: [String]?
    /// Relative to the container, e.g. `Thumbnails/<UUID>-cat.jpg`.
    public var thumbnail: String?
    public var warnings: [String]
    public var timings: Timings

    public init(
        input: String, line: Int, id: String? = nil, status: Status, reason: String? = nil,
        file: String? = nil, identifier: String? = nil, uti: String? = nil, format: String? = nil,
        category: String? = nil, bytes: Int? = nil, width: Int? = nil, height: Int? = nil,
        frames: Int? = nil, sha256: String? = nil, transform: [String]? = nil, thumbnail: String? = nil,
        warnings: [String] = [], timings: Timings = Timings()
    ) {
        self.input = input
        self.line = line
        self.id = id
        self.status = status
        self.reason = reason
        self.file = file
        self.identifier = identifier
        self.uti = uti
        self.format = format
        self.category = category
        self.bytes = bytes
        self.width = width
        self.height = height
        self.frames = frames
        self.sha256 = sha256
        self.transform = transform
        self.thumbnail = thumbnail
        self.warnings = warnings
        self.timings = timings
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case input, line, id, status, reason, file, identifier, uti, format, category
        case bytes, width, height, frames, sha256, transform, thumbnail, warnings, timings
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(input, forKey: .input)
        try c.encode(line, forKey: .line)
        try c.encodeOrNull(id, forKey: .id)
        try c.encode(status, forKey: .status)
        try c.encodeOrNull(reason, forKey: .reason)
        try c.encodeOrNull(file, forKey: .file)
        try c.encodeOrNull(identifier, forKey: .identifier)
        try c.encodeOrNull(uti, forKey: .uti)
        try c.encodeOrNull(format, forKey: .format)
        try c.encodeOrNull(category, forKey: .category)
        try c.encodeOrNull(bytes, forKey: .bytes)
        try c.encodeOrNull(width, forKey: .width)
        try c.encodeOrNull(height, forKey: .height)
        try c.encodeOrNull(frames, forKey: .frames)
        try c.encodeOrNull(sha256, forKey: .sha256)
        try c.encodeOrNull(transform, forKey: .transform)
        try c.encodeOrNull(thumbnail, forKey: .thumbnail)
        try c.encode(warnings, forKey: .warnings)
        try c.encode(timings, forKey: .timings)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        input = try c.decode(String.self, forKey: .input)
        line = try c.decode(Int.self, forKey: .line)
        id = try c.decodeIfPresent(String.self, forKey: .id)
        status = try c.decode(Status.self, forKey: .status)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        file = try c.decodeIfPresent(String.self, forKey: .file)
        identifier = try c.decodeIfPresent(String.self, forKey: .identifier)
        uti = try c.decodeIfPresent(String.self, forKey: .uti)
        format = try c.decodeIfPresent(String.self, forKey: .format)
        category = try c.decodeIfPresent(String.self, forKey: .category)
        bytes = try c.decodeIfPresent(Int.self, forKey: .bytes)
        width = try c.decodeIfPresent(Int.self, forKey: .width)
        height = try c.decodeIfPresent(Int.self, forKey: .height)
        frames = try c.decodeIfPresent(Int.self, forKey: .frames)
        sha256 = try c.decodeIfPresent(String.self, forKey: .sha256)
        transform = try c.decodeIfPresent([String].self, forKey: .transform)
        thumbnail = try c.decodeIfPresent(String.self, forKey: .thumbnail)
        warnings = try c.decodeIfPresent([String].self, forKey: .warnings) ?? []
        timings = try c.decodeIfPresent(Timings.self, forKey: .timings) ?? Timings()
    }
}

extension KeyedEncodingContainer {
    /// `null` for nil, so the key is always present.
    mutating func encodeOrNull<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}
