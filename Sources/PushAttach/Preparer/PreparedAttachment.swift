import Foundation
import MediaTypes
import SystemSupport

/// A file ready to hand to `UNNotificationAttachment`: where it is, its identifier and type
/// hint, what it is and how it was made.
///
///     let attachment = try await AttachmentPreparer.shared.prepare(url, into: folder)
///     attachment.fileURL      // …/Images/0AF39F86-…-cat.jpg
///     attachment.typeHint     // "public.jpeg"
///     attachment.pixelSize    // 2048×1365
///
/// `Codable`: a service can answer with it as JSON, or put it on a queue.
public struct PreparedAttachment: Sendable, Hashable, Codable {
    /// The id of the request it was prepared for (`AttachmentRequest.id`); nil when none was given.
    public var requestID: String?
    /// The URL it was prepared from.
    public var sourceURL: URL
    /// The file, in the folder's `Images/`, `Audio/` or `Video/`, named `<identifier>-<name>.<ext>`.
    public var fileURL: URL
    /// The UUID in the file name: the attachment identifier.
    public var identifier: String
    /// The UTI to pass as `UNNotificationAttachmentOptionsTypeHintKey` ("public.jpeg").
    public var typeHint: String
    /// What the file is.
    public var format: MediaFormat
    /// The file's pixel size, upright; nil for audio and video.
    public var pixelSize: PixelSize?
    /// The downloaded image's pixel size, upright; nil when not an image.
    public var sourcePixelSize: PixelSize?
    /// Frames in the file (an animated GIF passed through has several); nil when unknown.
    public var frames: Int?
    /// The file's size in bytes.
    public var byteCount: Int
    /// The file's SHA-256, lower-case hex.
    public var sha256: String
    /// The thumbnail, in `Thumbnails/`, when `Configuration.thumbnailSize` is set.
    public var thumbnailURL: URL?
    /// What was noticed on the way: claims that disagreed with the bytes, redirects, codec warnings.
    public var warnings: [String]
    /// What was done, one step each ("decoded webp 320x240", "encoded jpeg q85").
    public var steps: [String]

    /// The attachment an entry of the pipeline describes, or nil when it is not complete.
    init?(entry: ManifestEntry, folder: URL, sourceURL: URL) {
        guard entry.status == .prepared, let file = entry.file, let identifier = entry.identifier,
            let uti = entry.uti, let sha256 = entry.sha256
        else { return nil }
        self.sourceURL = sourceURL
        fileURL = folder.appendingPathComponent(file)
        self.identifier = identifier
        typeHint = uti
        format = entry.mediaFormat ?? .unknown
        pixelSize = Self.size(entry.width, entry.height)
        sourcePixelSize = Self.size(entry.sourceWidth, entry.sourceHeight)
        frames = entry.frames
        byteCount = entry.bytes ?? 0
        self.sha256 = sha256
        thumbnailURL = entry.thumbnail.map { folder.appendingPathComponent($0) }
        warnings = entry.warnings
        steps = entry.transform ?? []
    }

    private static func size(_ width: Int?, _ height: Int?) -> PixelSize? {
        guard let width, let height else { return nil }
        return PixelSize(width: width, height: height)
    }
}
