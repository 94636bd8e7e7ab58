// GettingStarted.md, "The server pattern: per-request headers, status, retry advice", verbatim
// at the top level of this file (the snippet declares its own `folder`, `preparer` and `handle`).
import Foundation
import PushAttach

let folder = URL(fileURLWithPath: "/var/lib/push/attachments")
let preparer = AttachmentPreparer(configuration: {
    var configuration = AttachmentPreparer.Configuration.default
    configuration.fetch.allowedHosts = ["*.cdn.example.com"]
    configuration.fetch.headers["X-Service"] = "push"  // sent with every request
    return configuration
}())

func handle(_ url: URL, token: String) async -> (status: Int, headers: [String: String], body: Data) {
    var request = AttachmentRequest(url: url, typeHint: "image")
    request.headers["Authorization"] = "Bearer \(token)"  // this request's origin only
    do {
        let attachment = try await preparer.prepare(request, into: folder)
        return (200, [:], Data(attachment.fileURL.lastPathComponent.utf8))
    } catch {
        let problem = AttachmentProblem(error)  // 404 for an origin's 404, 502 and its Retry-After for its 503
        var headers = ["Content-Type": "application/json"]
        if let seconds = problem.retryAfterSeconds { headers["Retry-After"] = String(seconds) }
        return (problem.status, headers, problem.json)
    }
}
