import Foundation
import MediaTypes
import SystemSupport

/// One entry of the manifest: what happened to one input item.
///
///     var entry = ManifestEntry(index: 2, input: "https://x.test/cat.webp", line: 3, status: .prepared)
///     entry.file = "Images/0AF39F86-…-cat.jpg"; entry.uti = "public.jpeg"
///     entry.jsonLine()   // {"index":2,"input":"https://x.test/cat.webp","line":3,"id":null,…}
///
/// Written with snake_case keys, always all of them and always in this order (`keys`): `index`,
/// `input`, `line`, `id`, `status`, `action`, `deviation`, `error_code`, `refusal`, `failure`,
/// `reason`, `file`, `identifier`, `uti`,
/// `format`, `category`, `bytes`, `first_bytes`, `width`, `height`, `frames`, `source_width`, `source_height`,
/// `sha256`, `transform`, `thumbnail`, `warnings`, `timings` {`download_ms`, `process_ms`,
/// `write_ms`}. Absent values are `null`, never left out, so every entry has the same shape.
/// `docs/manifest.schema.json` is the schema; `docs/MANIFEST.md` says what each key means.
///
/// `index` is the item's position in the run's input, `input` the URL as the input gave it (for
/// a bad line, the problem's source) and `line` its 1-based line in its source; the three
/// together identify the entry.
package struct ManifestEntry: Codable, Sendable, Hashable {
    package enum Status: String, Codable, Sendable, Hashable {
        case prepared, rejected, failed
    }

    /// Milliseconds spent per stage.
    package struct Timings: Codable, Sendable, Hashable {
        package var downloadMs: Int
        package var processMs: Int
        package var writeMs: Int

        package init(downloadMs: Int = 0, processMs: Int = 0, writeMs: Int = 0) {
            self.downloadMs = downloadMs
            self.processMs = processMs
            self.writeMs = writeMs
        }

        package enum CodingKeys: String, CodingKey {
            case downloadMs = "download_ms", processMs = "process_ms", writeMs = "write_ms"
        }

        package init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            downloadMs = try c.decodeIfPresent(Int.self, forKey: .downloadMs) ?? 0
            processMs = try c.decodeIfPresent(Int.self, forKey: .processMs) ?? 0
            writeMs = try c.decodeIfPresent(Int.self, forKey: .writeMs) ?? 0
        }

        package func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }

        package var json: ManifestJSON {
            .object([("download_ms", .int(downloadMs)), ("process_ms", .int(processMs)), ("write_ms", .int(writeMs))])
        }
    }

    /// 0-based position of the item among everything the run's INPUTs yielded (items and bad
    /// lines, each INPUT in turn, in reading order). `manifest.json` lists entries by it;
    /// `manifest.jsonl` is in the order items finished.
    package var index: Int
    /// The item's URL (or input name) as every output shows it: without the credentials a URL
    /// may carry (`DisplayText.withoutCredentials`), whatever was assigned.
    package var input: String {
        get { shownInput }
        set { shownInput = DisplayText.withoutCredentials(newValue) }
    }
    private var shownInput: String
    package var line: Int
    package var id: String?
    package var status: Status
    /// What `prepare` did, in the words `verify` prints (`AttachmentPlan.Action`: `pass-through`,
    /// `rename`, `convert`, `fit`, `reencode-animation`, `first-frame`, `refuse`); nil for a
    /// download that failed before a plan, and in manifests written before it was recorded.
    package var action: String?
    /// What the engine did otherwise than planned (`Plan.Deviation`: `opaque-alpha-as-jpeg`,
    /// `png-over-cap-as-jpeg`, `animation-as-first-frame`); nil when it did as planned.
    package var deviation: String?
    /// The UNErrorCode iOS would give the file (`UNErrorCode.rawValue`, as `verify --json`'s
    /// `error_code`): set on rejections iOS itself would make, and on failures where one applies
    /// (a download over iOS's size cap, 102); nil when prepared and for refusals of our own.
    package var errorCode: Int?
    /// Why the item was refused, as the word refusals are grouped by (`Refusal.Kind`: `not-media`,
    /// `over-cap`, `damaged` …); nil unless rejected.
    package var refusal: String?
    /// Why a failed item's bytes could not be had or its file written, as the word failures are
    /// grouped by (`ItemFailure.key`: `http-404`, `timed-out`, `write`, `input` …); nil unless failed.
    package var failure: String?
    /// Why the item was rejected or failed; nil when prepared.
    package var reason: String?
    /// Relative to the container, e.g. `Images/<UUID>-cat.jpg`.
    package var file: String?
    /// The identifier to give `UNNotificationAttachment` (the UUID in the file name).
    package var identifier: String?
    /// The type hint to pass (`UNNotificationAttachmentOptionsTypeHintKey`).
    package var uti: String?
    package var format: String?
    package var category: String?
    package var bytes: Int?
    /// For a refused item: the first bytes of what arrived (up to `firstBytesCount`), lowercase
    /// hex, so a person can see what a URL served instead of media (an HTML error page, a
    /// truncated header). Nil when prepared, and for failures before anything arrived.
    package var firstBytes: String?
    /// The written file's pixel size (upright).
    package var width: Int?
    package var height: Int?
    package var frames: Int?
    /// The downloaded input's pixel size, upright (its Exif or XMP orientation applied); the
    /// size stored in its header when the orientation could not be read (an image refused for its
    /// header, its Exif block or the pixel budget). Nil when not an image, or unreadable.
    package var sourceWidth: Int?
    package var sourceHeight: Int?
    package var sha256: String?
    /// What the engine did, one human-readable step each ("decoded webp 320x240", "resized …").
    package var transform: [String]?
    /// Relative to the container, e.g. `Thumbnails/<UUID>-cat.jpg`.
    package var thumbnail: String?
    package var warnings: [String]
    package var timings: Timings

    package init(
        index: Int = 0, input: String, line: Int, id: String? = nil, status: Status, action: String? = nil,
        deviation: String? = nil, errorCode: Int? = nil, refusal: String? = nil, failure: String? = nil,
        reason: String? = nil, file: String? = nil, identifier: String? = nil, uti: String? = nil,
        format: String? = nil, category: String? = nil, bytes: Int? = nil, firstBytes: String? = nil,
        width: Int? = nil, height: Int? = nil,
        frames: Int? = nil, sourceWidth: Int? = nil, sourceHeight: Int? = nil, sha256: String? = nil,
        transform: [String]? = nil, thumbnail: String? = nil, warnings: [String] = [], timings: Timings = Timings()
    ) {
        self.index = index
        shownInput = DisplayText.withoutCredentials(input)
        self.line = line
        self.id = id
        self.status = status
        self.action = action
        self.deviation = deviation
        self.errorCode = errorCode
        self.refusal = refusal
        self.failure = failure
        self.reason = reason
        self.file = file
        self.identifier = identifier
        self.uti = uti
        self.format = format
        self.category = category
        self.bytes = bytes
        self.firstBytes = firstBytes
        self.width = width
        self.height = height
        self.frames = frames
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.sha256 = sha256
        self.transform = transform
        self.thumbnail = thumbnail
        self.warnings = warnings
        self.timings = timings
    }

    /// The entry as JSON members, in the manifest's key order: the one place that order is
    /// written down (`jsonLine`, `manifest.json` and `encode(to:)` all use it).
    package var json: ManifestJSON {
        .object([
            ("index", .int(index)),
            ("input", .string(input)),
            ("line", .int(line)),
            ("id", .optional(id)),
            ("status", .string(status.rawValue)),
            ("action", .optional(action)),
            ("deviation", .optional(deviation)),
            ("error_code", .optional(errorCode)),
            ("refusal", .optional(refusal)),
            ("failure", .optional(failure)),
            ("reason", .optional(reason)),
            ("file", .optional(file)),
            ("identifier", .optional(identifier)),
            ("uti", .optional(uti)),
            ("format", .optional(format)),
            ("category", .optional(category)),
            ("bytes", .optional(bytes)),
            ("first_bytes", .optional(firstBytes)),
            ("width", .optional(width)),
            ("height", .optional(height)),
            ("frames", .optional(frames)),
            ("source_width", .optional(sourceWidth)),
            ("source_height", .optional(sourceHeight)),
            ("sha256", .optional(sha256)),
            ("transform", .optional(transform)),
            ("thumbnail", .optional(thumbnail)),
            ("warnings", .strings(warnings)),
            ("timings", timings.json),
        ])
    }

    /// How many leading bytes of a refused download `firstBytes` keeps.
    package static let firstBytesCount = 32

    /// Every key of an entry, in the order they are written.
    package static let keys: [String] = {
        guard case .object(let members) = ManifestEntry(input: "", line: 0, status: .failed).json else { return [] }
        return members.map(\.key)
    }()

    /// The entry as one line of JSON (no newline), keys in the fixed order, as `manifest.jsonl`
    /// holds it: compact, slashes unescaped, U+2028/U+2029 and the other characters
    /// `DisplayText` escapes written `\uXXXX`.
    package func jsonLine() -> Data { json.data() }

    /// Encodes the same keys in the same order as `jsonLine()`. (An encoder may reorder them:
    /// `JSONEncoder` does, unless told to sort them.)
    package func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case index, input, line, id, status, action, deviation
        case errorCode = "error_code"
        case refusal, failure, reason, file, identifier, uti, format, category, bytes
        case firstBytes = "first_bytes"
        case width, height, frames
        case sourceWidth = "source_width", sourceHeight = "source_height"
        case sha256, transform, thumbnail, warnings, timings
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        index = try c.decodeIfPresent(Int.self, forKey: .index) ?? 0
        shownInput = DisplayText.withoutCredentials(try c.decode(String.self, forKey: .input))
        line = try c.decode(Int.self, forKey: .line)
        id = try c.decodeIfPresent(String.self, forKey: .id)
        status = try c.decode(Status.self, forKey: .status)
        action = try c.decodeIfPresent(String.self, forKey: .action)
        deviation = try c.decodeIfPresent(String.self, forKey: .deviation)
        errorCode = try c.decodeIfPresent(Int.self, forKey: .errorCode)
        refusal = try c.decodeIfPresent(String.self, forKey: .refusal)
        failure = try c.decodeIfPresent(String.self, forKey: .failure)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        file = try c.decodeIfPresent(String.self, forKey: .file)
        identifier = try c.decodeIfPresent(String.self, forKey: .identifier)
        uti = try c.decodeIfPresent(String.self, forKey: .uti)
        format = try c.decodeIfPresent(String.self, forKey: .format)
        category = try c.decodeIfPresent(String.self, forKey: .category)
        bytes = try c.decodeIfPresent(Int.self, forKey: .bytes)
        firstBytes = try c.decodeIfPresent(String.self, forKey: .firstBytes)
        width = try c.decodeIfPresent(Int.self, forKey: .width)
        height = try c.decodeIfPresent(Int.self, forKey: .height)
        frames = try c.decodeIfPresent(Int.self, forKey: .frames)
        sourceWidth = try c.decodeIfPresent(Int.self, forKey: .sourceWidth)
        sourceHeight = try c.decodeIfPresent(Int.self, forKey: .sourceHeight)
        sha256 = try c.decodeIfPresent(String.self, forKey: .sha256)
        transform = try c.decodeIfPresent([String].self, forKey: .transform)
        thumbnail = try c.decodeIfPresent(String.self, forKey: .thumbnail)
        warnings = try c.decodeIfPresent([String].self, forKey: .warnings) ?? []
        timings = try c.decodeIfPresent(Timings.self, forKey: .timings) ?? Timings()
    }
}
