import Foundation

/// A successful (2xx) download.
///
///     let response = try await client.fetch("https://cdn.example.com/cat.jpg")
///     response.body.count, response.contentType, response.redirects
public struct FetchResponse: Sendable {
    /// The URL asked for.
    public var url: String
    /// The URL the body came from, after redirects.
    public var finalURL: String
    public var status: Int
    /// Content-Type as sent: a hint only, the bytes decide the type.
    public var contentType: String?
    public var contentDisposition: String?
    /// The Content-Disposition filename, raw and untrusted (may hold `../`).
    public var suggestedFilename: String?
    public var body: Data
    /// Each redirect target followed, in order.
    public var redirects: [String]
    /// Attempts made, 1 when the first succeeded.
    public var attempts: Int
    public var elapsed: Duration
}
