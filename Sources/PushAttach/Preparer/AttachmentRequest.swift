import Foundation
import MediaTypes
import SystemSupport

/// One item of a batch: a URL with the sender's type hint and an id of the caller's own.
///
///     let request = AttachmentRequest(url: URL(string: "https://cdn.example.com/cat.webp")!, typeHint: "image")
public struct AttachmentRequest: Sendable, Hashable {
    /// The media URL (`http` or `https`).
    public var url: URL
    /// The sender's claim of what it is: coarse ("image"), MIME, UTI or an extension.
    public var typeHint: String?
    /// An id of the caller's (a notification id); not used by the preparer.
    public var id: String?
    /// Request headers for this URL, over `Configuration.fetch.headers` (a name given in both
    /// takes this value): a tenant's token, a signed header. Sent to the URL's own origin only,
    /// as those are; checked the same way (`FetchPolicy.headerProblem(adding:)`).
    ///
    ///     var request = AttachmentRequest(url: url)
    ///     request.headers["Authorization"] = "Bearer \(tenant.token)"
    public var headers: [String: String] = [:]

    /// A request for `url`.
    public init(url: URL, typeHint: String? = nil, id: String? = nil) {
        self.url = url
        self.typeHint = typeHint
        self.id = id
    }
}
