import Foundation

/// A successful (2xx) download.
///
///     let response = try await client.fetch("https://cdn.example.com/cat.jpg")
///     response.body.count, response.contentType, response.redirects
package struct FetchResponse: Sendable {
    /// The URL asked for.
    package var url: String
    /// The URL the body came from, after redirects.
    package var finalURL: String
    /// The final hop's status (2xx).
    package var status: Int
    /// Content-Type as sent: a hint only, the bytes decide the type.
    package var contentType: String?
    /// Content-Disposition as sent.
    package var contentDisposition: String?
    /// The Content-Disposition filename, raw and untrusted (may hold `../`).
    package var suggestedFilename: String?
    /// The body: in memory, or in a spool file past `FetchPolicy.spoolThreshold`.
    package var content: FetchBody
    /// The body as `Data`: the bytes in memory, or the spool file mapped. Empty when a spool
    /// file cannot be mapped; `content.data()` says why.
    package var body: Data { (try? content.data()) ?? Data() }
    /// Each redirect target followed, in order.
    package var redirects: [String]
    /// Attempts made, 1 when the first succeeded.
    package var attempts: Int
    /// From the first attempt's start to the body's end.
    package var elapsed: Duration
}
