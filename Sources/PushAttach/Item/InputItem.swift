import Foundation
import SystemSupport

/// One media URL to prepare, with where it came from.
///
///     InputItem(url: "https://cdn.example/cat.webp", mediaType: "image", source: "list.txt", line: 12)
///
/// `line` is 1-based; `0` means the whole source (a local media file given as an INPUT).
package struct InputItem: Sendable, Hashable {
    package var url: String
    /// The sender's type hint, as written: coarse ("image"), MIME, UTI or an extension.
    package var mediaType: String?
    /// An id the input gave the item (JSON `id`, OneSignal's `att` key).
    package var id: String?
    /// The INPUT argument: a file path, or `-` for standard input.
    package var source: String
    package var line: Int
    /// Which payload convention found the URL ("fcm", "onesignal", "media_url", …); nil for
    /// plain list lines and `{"url": …}` lines, "file" for a local media file.
    package var convention: String?
    /// Request headers for this item over the run's (`FetchPolicy.headers`): a library
    /// request's own (`AttachmentRequest.headers`); inputs read from files carry none.
    package var headers: [String: String] = [:]
    /// The item's bytes, when a library call gave them (`AttachmentPreparer.prepare(_:filename:into:)`):
    /// nothing is fetched, and `filename` names them.
    package var body: Data?
    /// The name `body` goes by: its extension is a claim, its base the attachment's name.
    package var filename: String?
    /// When a library call must be over (`AttachmentPreparer.Configuration.callDeadline`): the
    /// download's retries and waits end by it. Nil for items of a batch run.
    package var deadline: ContinuousClock.Instant?

    /// A file on this machine (`file://`), read rather than fetched.
    package var isLocal: Bool { url.hasPrefix("file://") }

    package init(
        url: String, mediaType: String? = nil, id: String? = nil, source: String, line: Int,
        convention: String? = nil
    ) {
        self.url = url
        self.mediaType = mediaType
        self.id = id
        self.source = source
        self.line = line
        self.convention = convention
    }
}
