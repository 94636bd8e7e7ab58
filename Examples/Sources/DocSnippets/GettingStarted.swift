// The code samples of README.md and of the DocC article GettingStarted.md, verbatim, so the
// build of this package proves they compile. When a sample changes, change it here too.
import Foundation
import PushAttach

// README.md and GettingStarted.md, "The five lines".
func fiveLines(url: URL, folder: URL) async throws {
    var configuration = AttachmentPreparer.Configuration.default
    configuration.fetch.allowPrivateNetworks = false  // the default: no loopback or private addresses
    let preparer = AttachmentPreparer(configuration: configuration)  // Sendable; or AttachmentPreparer.shared
    let a = try await preparer.prepare(url, typeHint: "image", into: folder)  // throws(AttachmentError)
    print(a.fileURL.path, a.typeHint, a.pixelSize?.description ?? "-", a.warnings)
}

// README.md, the rest of the example.
func theOtherJobs(urls: [URL], folder: URL, path: URL, bytes: Data) async throws {
    for await (url, result) in AttachmentPreparer.shared.prepare(urls, into: folder) {
        print(url, (try? result.get())?.fileURL.path ?? "failed")
    }
    let report = await AttachmentVerifier().verify(fileAt: path)  // .verdict: .accepted, .transcode, .rejected
    print(report.verdict, report.errorCode?.rawValue ?? 0)
    let thumb = try await Thumbnail.image(from: bytes, maxSide: 256)  // .data, .size
    print(thumb.size, thumb.data.count)
}

// GettingStarted.md, "One URL per request in a server".
enum Server {
    static let folder = URL(fileURLWithPath: "/var/lib/push/attachments")

    static func attachment(for url: String, typeHint: String?) async throws(AttachmentError) -> PreparedAttachment {
        try await AttachmentPreparer.shared.prepare(url, typeHint: typeHint, into: folder)
    }
}

// GettingStarted.md, "A batch with progress".
func batch(urls: [URL], folder: URL) async {
    var done = 0
    for await (url, result) in AttachmentPreparer.shared.prepare(urls, into: folder) {
        done += 1
        switch result {
        case .success(let attachment):
            print("[\(done)/\(urls.count)] \(url) -> \(attachment.fileURL.lastPathComponent)")
        case .failure(let error):
            print("[\(done)/\(urls.count)] \(url): \(error.kind) \(error.reason)")
        }
    }
}

// GettingStarted.md, "A batch with progress" (requests with hints and ids).
func batchOfRequests(folder: URL) async {
    let requests = [
        AttachmentRequest(url: URL(string: "https://cdn.example.com/a.webp")!, typeHint: "image", id: "n-1"),
        AttachmentRequest(url: URL(string: "https://cdn.example.com/b.mp4")!, typeHint: "video", id: "n-2"),
    ]
    for await (url, result) in AttachmentPreparer.shared.prepare(requests, into: folder) {
        print(url, (try? result.get())?.typeHint ?? "not prepared")
    }
}

// GettingStarted.md, "Verifying a folder".
func verifyFolder(_ folder: URL) async throws {
    let verifier = AttachmentVerifier()
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
        let report = await verifier.verify(fileAt: folder.appendingPathComponent(name))
        switch report.verdict {
        case .accepted: print("accepted", name, report.typeHint ?? "")
        case .transcode: print("transcode", name, "to", report.transcodeTarget?.rawValue ?? "?")
        case .rejected: print("rejected", name, report.errorCode?.rawValue ?? 0, report.reason ?? "")
        case .failed: print("unreadable", name, report.reason ?? "")
        }
    }
}

// GettingStarted.md, "A thumbnail".
func thumbnail(of photo: URL, to output: URL) async throws {
    let bytes = try Data(contentsOf: photo)
    let thumb = try await Thumbnail.image(from: bytes, maxSide: 256)
    try thumb.data.write(to: output)
    print(thumb.size, thumb.format)  // 256×192 jpeg
}

// GettingStarted.md, "Errors".
func errors(url: URL, folder: URL) async {
    do {
        _ = try await AttachmentPreparer.shared.prepare(url, into: folder)
    } catch {
        // `error` is an AttachmentError (typed throws): no cast needed.
        print(error.kind, error.errorCode?.rawValue ?? 0, error.reason)
        if case .fetch(.httpStatus(_, let status, _)) = error.underlying { print("origin said", status) }
    }
}

// GettingStarted.md, "Cancellation".
func withDeadline(url: URL, folder: URL) async throws {
    let work = Task { try await AttachmentPreparer.shared.prepare(url, into: folder) }
    try await Task.sleep(for: .seconds(20))
    work.cancel()  // stops the download or the CPU work; nothing partial is left
}

// GettingStarted.md, "Memory".
func memory() -> AttachmentPreparer {
    var configuration = AttachmentPreparer.Configuration.default
    configuration.admissionBudget = 128_000_000  // all calls of this preparer, at once
    configuration.spoolBudget = 1_000_000_000  // spooled downloads, per folder
    configuration.maxInFlight = 8
    return AttachmentPreparer(configuration: configuration)
}

// GettingStarted.md, "The server pattern: per-request headers, status, retry advice".
enum ServerPattern {
    static let folder = URL(fileURLWithPath: "/var/lib/push/attachments")
    static let preparer = AttachmentPreparer(configuration: {
        var configuration = AttachmentPreparer.Configuration.default
        configuration.fetch.allowedHosts = ["*.cdn.example.com"]
        configuration.fetch.headers["X-Service"] = "push"  // sent with every request
        return configuration
    }())

    static func handle(_ url: URL, token: String) async -> (status: Int, headers: [String: String], body: String) {
        var request = AttachmentRequest(url: url, typeHint: "image")
        request.headers["Authorization"] = "Bearer \(token)"  // this request's origin only
        do {
            let attachment = try await preparer.prepare(request, into: folder)
            return (200, [:], attachment.fileURL.lastPathComponent)
        } catch {
            var headers: [String: String] = [:]
            if error.isRetryable, let wait = error.retryAfter { headers["Retry-After"] = "\(wait.components.seconds)" }
            return (error.httpStatus, headers, error.reason)  // 502 for an origin's 404, 503 for its 503
        }
    }
}

// GettingStarted.md, "Errors": the mapping a server uses (as Examples/http-endpoint does).
extension AttachmentError {
    /// The HTTP status a server answers when preparing an attachment failed: the caller's
    /// mistakes are 4xx; the media's origin refusing is 502, failing for now 503 or 504 (worth
    /// a retry: `isRetryable`, after `retryAfter`); our own trouble is 503 or 507.
    var httpStatus: Int {
        switch kind {
        case .invalidURL, .invalidArgument: 400  // Bad Request: fix the request
        case .blocked: 403  // Forbidden: a private address, a host not allowed
        case .tooLarge: 413  // Content Too Large: over iOS's cap for its kind
        case .rejected, .processingFailed: 422  // Unprocessable Content: not media iOS can show
        case .downloadFailed:
            if case .fetch(.timedOut) = underlying {
                504  // Gateway Timeout: the origin was too slow; try again
            } else if isRetryable {
                503  // the origin is unavailable for now (5xx, 429, connection): try again, after `retryAfter`
            } else {
                502  // Bad Gateway: the origin refused (404, 401): the same request will fail again
            }
        case .writeFailed: isRetryable ? 503 : 507  // held by a batch for now; disk full or read-only
        case .cancelled: 503
        }
    }
}
