import Foundation

/// What a load gives: a file iOS takes as it is, with the identifier and type hint to attach it
/// with, or no file and why.
///
///     let loaded = await AttachmentLoader().load(userInfo: userInfo, into: folder, within: .seconds(25))
///     if let file = loaded.fileURL {
///         let attachment = try UNNotificationAttachment(
///             identifier: loaded.identifier, url: file,
///             options: [UNNotificationAttachmentOptionsTypeHintKey: loaded.typeHint!])
///     } else {
///         print(loaded.reason!)   // "not media: the bytes are an HTML page (…)"
///     }
public struct LoadedAttachment: Sendable, Hashable {
    /// The file, in the folder given: `<UUID>-<name>.<ext>`, named after the media's URL and
    /// with the extension of the type its bytes are. Nil when there is no file.
    public var fileURL: URL?
    /// The attachment's identifier: the push's own id for it (OneSignal's `att` key) when it has
    /// one, else the UUID the file is named with.
    public var identifier: String
    /// The UTI for `UNNotificationAttachmentOptionsTypeHintKey` (`public.jpeg`): from the bytes,
    /// or `pushattach serve`'s `X-Attachment-Type-Hint` when it names the same format more
    /// precisely. Nil when there is no file.
    public var typeHint: String?
    /// Why there is no file; nil when there is one.
    public var refusal: AttachmentRefusal?
    /// The media the push named and the load used; nil when it named none.
    public var media: PayloadMedia?
    /// Claims about the file that disagreed with its bytes (a `media_type` of "video" for a
    /// JPEG), and other notes that did not stop it.
    public var warnings: [String]

    /// Why there is no file, one line (`refusal`'s description); nil when there is one.
    public var reason: String? { refusal?.description }

    /// A load that gave `fileURL`.
    init(fileURL: URL, identifier: String, typeHint: String, media: PayloadMedia, warnings: [String]) {
        self.fileURL = fileURL
        self.identifier = identifier
        self.typeHint = typeHint
        self.media = media
        self.warnings = warnings
    }

    /// A load that gave no file, for `refusal`.
    init(refusal: AttachmentRefusal, identifier: String, media: PayloadMedia?) {
        self.identifier = identifier
        self.refusal = refusal
        self.media = media
        warnings = []
    }
}
