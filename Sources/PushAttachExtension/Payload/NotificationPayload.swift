import Foundation
import PushPayloads

/// What a push names as its attachment, read from its `userInfo` by the conventions `pushattach
/// prepare` reads payloads by (FCM's `attachment`, `attachment-url`, `media_url`, OneSignal's
/// `att`, …; docs/attachment-rules.md). A value, so it can go to another task while the push's
/// own dictionary stays where it is.
///
///     let payload = NotificationPayload(userInfo: request.content.userInfo)
///     payload.media?.url          // what the loader downloads
///     payload.media?.convention   // "attachment-url"
///
/// When the push names a `pushattach serve` link (`…/a/<signature>/<source>`) and other URLs,
/// the link is the one loaded: serve answers with a file iOS takes and its type hint.
public struct NotificationPayload: Sendable, Hashable {
    /// The attachment the push names (the first serve link, else the first URL found); nil
    /// when it names none.
    public var media: PayloadMedia?
    /// Every media URL the push names, in the order the conventions find them.
    public var candidates: [PayloadMedia]
    /// What `prepare --rewrite` wrote in place of media the batch refused (`pushattach_error`).
    public var senderNote: String?

    /// Reads `userInfo` (the notification's whole payload). Keys that are not strings are
    /// passed over.
    public init(userInfo: [AnyHashable: Any]) {
        var object: [String: Any] = [:]
        for (key, value) in userInfo {
            if let key = key as? String { object[key] = value }
        }
        candidates = PayloadConventions.attachments(in: object).compactMap(PayloadMedia.init)
        media = candidates.first { $0.isServeLink } ?? candidates.first
        senderNote = PayloadConventions.string(object[PayloadConventions.refusalNoteKey])
    }
}

/// One media URL of a push, with what the push says about it.
public struct PayloadMedia: Sendable, Hashable {
    /// What to download: the URL as the push gives it.
    public var url: URL
    /// The media's own URL: the source a serve link stands for, else `url`. The file is named
    /// after it.
    public var source: URL
    /// Whether `url` is a `pushattach serve` link.
    public var isServeLink: Bool
    /// The sender's type hint: the convention's (`media_type`, OneSignal's `type`, …), or a serve
    /// link's `type=`.
    public var mediaType: String?
    /// The push's own id for the attachment (OneSignal's `att` key); nil for most conventions.
    public var identifier: String?
    /// The convention it was found by (`fcm`, `attachment-url`, `media_url`, `onesignal`, …);
    /// nil for an explicit `{"url": …}` object.
    public var convention: String?

    /// A media URL found in a payload; nil when it is no URL at all.
    init?(_ found: PayloadConventions.Found) {
        guard let url = URL(string: found.url) else { return nil }
        self.url = url
        let link = ServeLink(url)
        source = link?.source ?? url
        isServeLink = link != nil
        mediaType = found.mediaType ?? link?.typeHint
        identifier = found.id
        convention = found.convention
    }
}
