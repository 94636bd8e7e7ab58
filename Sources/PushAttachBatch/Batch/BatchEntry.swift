import Foundation
import MediaTypes
import PushAttach
import SystemSupport

/// One finished item, as `manifest.json` records it (`docs/MANIFEST.md` says what each field means).
public struct BatchEntry: Sendable, Hashable {
    /// What became of an item.
    public enum Status: String, Sendable, Hashable {
        /// An attachment iOS takes was written.
        case prepared
        /// Refused for what it is (a type iOS refuses, damaged, too large).
        case rejected
        /// Not obtained or not written (input, network, HTTP, disk).
        case failed
    }

    /// The time spent on the item per stage, as `AttachmentEvent` gives it (the manifest keeps
    /// whole milliseconds, `download_ms`).
    public struct Timings: Sendable, Hashable {
        /// Downloading (or reading a local file).
        public var download: Duration
        /// Sniffing, checking, decoding, resizing and encoding.
        public var process: Duration
        /// Writing the attachment and its thumbnail.
        public var write: Duration
    }

    /// The item's position among everything the inputs yielded.
    public var index: Int
    /// The URL as the input gave it; for a problem with an input itself (a bad line), the input's name.
    public var input: String
    /// The input's line the item came from (1-based; 0 when it has none, as for `.urls`).
    public var line: Int
    /// The id the input gave the item, if any.
    public var id: String?
    /// What became of it.
    public var status: Status
    /// What was done, in `verify`'s words (`AttachmentReport.Action`); nil when the bytes were never judged.
    public var action: AttachmentReport.Action?
    /// The code iOS would give the file, on a refusal iOS would make too.
    public var errorCode: UNErrorCode?
    /// Why it was refused, as the word refusals are grouped by; nil unless rejected.
    public var refusal: Refusal.Kind?
    /// Why its bytes could not be had or its file written, as the word failures are grouped by
    /// (`http-404`, `timed-out`, `address-refused`, `write`, `input` …); nil unless failed.
    public var failure: String?
    /// The download's own error, when the item failed there and finished in this run (nil for
    /// entries read back from a manifest, which keep only `failure` and `reason`).
    public var downloadError: FetchError?
    /// Why it was rejected or failed; nil when prepared.
    public var reason: String?
    /// The written attachment; nil unless prepared.
    public var fileURL: URL?
    /// The written attachment's path inside the folder (`Images/<UUID>-cat.jpg`); nil unless prepared.
    public var file: String?
    /// The identifier for `UNNotificationAttachment` (the UUID in the file name).
    public var identifier: String?
    /// The type hint to pass (a UTI).
    public var typeHint: String?
    /// The written file's format; for a refused item, the input's as far as it was read.
    public var format: MediaFormat?
    /// For a refused item, the first bytes of what arrived (up to 32): an HTML error page, a
    /// truncated header. Nil when prepared, and when nothing arrived.
    public var firstBytes: [UInt8]?
    /// The written file's pixel size, upright.
    public var pixelSize: PixelSize?
    /// The downloaded image's pixel size, upright; nil when not an image or not decoded.
    public var sourcePixelSize: PixelSize?
    /// What the engine did, one step each ("transcoded webp -> jpeg", "resized 4000x3000 -> 2048x1536",
    /// "oriented upright (exif 6)"); nil when nothing was decoded.
    public var transform: [String]?
    /// The thumbnail, when one was asked for and made.
    public var thumbnailURL: URL?
    /// Notes that did not stop it: claims that disagreed with the bytes, codec warnings.
    public var warnings: [String]
    /// Where the item's time went.
    public var timings: Timings

    /// The entry as recorded, for `jsonLine()`.
    private let recorded: ManifestEntry

    init(_ entry: ManifestEntry, end: ItemEnd? = nil, folder: URL) {
        recorded = entry
        if case .failed(.download(let error))? = end { downloadError = error }
        index = entry.index
        input = entry.input
        line = entry.line
        id = entry.id
        status = Status(rawValue: entry.status.rawValue) ?? .failed
        action = entry.plannedAction
        errorCode = entry.recordedErrorCode
        refusal = entry.refusal.flatMap(Refusal.Kind.init(rawValue:))
        failure = entry.failure
        reason = entry.reason
        file = entry.file
        fileURL = entry.file.map { folder.appendingPathComponent($0) }
        identifier = entry.identifier
        typeHint = entry.uti
        format = entry.mediaFormat
        firstBytes = entry.firstBytes.flatMap(Self.bytes(hex:))
        pixelSize = entry.width.flatMap { w in entry.height.map { PixelSize(width: w, height: $0) } }
        sourcePixelSize = entry.sourceWidth.flatMap { w in entry.sourceHeight.map { PixelSize(width: w, height: $0) } }
        transform = entry.transform
        thumbnailURL = entry.thumbnail.map { folder.appendingPathComponent($0) }
        warnings = entry.warnings
        timings = Timings(
            download: .milliseconds(entry.timings.downloadMs), process: .milliseconds(entry.timings.processMs),
            write: .milliseconds(entry.timings.writeMs))
    }

    /// `hex` (two lowercase or uppercase digits per byte) as bytes; nil when it is not hex.
    static func bytes(hex: String) -> [UInt8]? {
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x41...0x46: digit - 0x41 + 10
            case 0x61...0x66: digit - 0x61 + 10
            default: nil
            }
        }
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for pair in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[pair]), let low = value(digits[pair + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// The entry as one line of `manifest.jsonl`: every key, in the manifest's order
    /// (`docs/MANIFEST.md`), without the newline. `reason` and `warnings` are this value's, so a
    /// caller that changed them (the console shortens a repeated hint) prints its own words.
    ///
    ///     FileHandle.standardOutput.write(entry.jsonLine() + Data("\n".utf8))
    public func jsonLine() -> Data {
        var entry = recorded
        entry.reason = reason
        entry.warnings = warnings
        return entry.jsonLine()
    }
}

/// How a batch ended: the counts, and where the manifest is.
public struct BatchSummary: Sendable, Hashable {
    /// Items written (an attachment iOS takes is in the folder).
    public var prepared: Int
    /// Items refused for what they are (a type iOS refuses, a damaged or too large image).
    public var rejected: Int
    /// Items that could not be obtained or written (network, HTTP, input lines, disk).
    public var failed: Int
    /// Items a resumed batch found prepared already and did not download again.
    public var skipped: Int
    /// Pushes in the inputs that name no media (text-only notifications): they have no entry
    /// and are neither rejected nor failed.
    public var noMedia: Int
    /// Files of a folder, or paths on standard input, passed over because they are no media
    /// (a README, a list): each with what it looks like.
    public var skippedFiles: [SkippedFile]
    /// Items left to the other shards (`AttachmentBatch.Options.shard`).
    public var otherShards: Int
    /// True when the batch was cancelled before every item finished: `manifest.json` is not
    /// written; run it again with `options.resume` to finish.
    public var interrupted: Bool
    /// For a shard: true when this one finished last and wrote `manifest.json`.
    public var merged: Bool
    /// The batch's folder, as opened (standardized).
    public var folder: URL
    /// `folder/manifest.json` (written when the batch finished, or when the last shard did).
    public var manifest: URL
    /// With `options.writeReport`: `folder/report.html` once written; nil when not asked, or when
    /// the batch ended before it (interrupted).
    public var report: URL?
    /// With `options.writeReport`: why the report could not be written (the items are done and
    /// the manifest is written all the same).
    public var reportError: String?

    /// Why items were rejected or failed, grouped by what refused them or kept their bytes from
    /// being had ("rejected 102 over-cap", "failed http-404"), and how many each.
    public var reasons: [String: Int]

    /// A summary of nothing done yet, for `folder`: every count zero, `manifest` at
    /// `folder/manifest.json`, no report. (For code that builds or tests one.)
    public init(folder: URL) {
        prepared = 0
        rejected = 0
        failed = 0
        skipped = 0
        noMedia = 0
        skippedFiles = []
        otherShards = 0
        interrupted = false
        merged = false
        self.folder = folder
        manifest = folder.appendingPathComponent("manifest.json")
        reasons = [:]
    }

    /// Items that finished in this run: prepared, rejected and failed.
    public var total: Int { prepared + rejected + failed }

    /// The `count` most frequent `reasons`, most frequent first (ties by name).
    public func topReasons(_ count: Int = 5) -> [(reason: String, count: Int)] {
        reasons.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(count).map {
            ($0.key, $0.value)
        }
    }
}
