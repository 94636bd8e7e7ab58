// The samples of README.md, verbatim inside `readme()` (the first screen), `readmeBatch()`
// ("A batch from a service") and `readmeService()` ("In a service"), with their three imports
// (URL is Foundation's: `import PushAttach` alone does not make it visible; the batch is
// `PushAttachBatch`'s).
import Foundation
import PushAttach
import PushAttachBatch

func readme() async throws {
    let url = URL(string: "https://cdn.example.com/cat.webp")!
    let folder = URL(fileURLWithPath: "/var/lib/push/attachments")
    var configuration = AttachmentPreparer.Configuration.default
    configuration.fetch.allowPrivateNetworks = false  // the default; also limits, rules, naming, budgets
    let preparer = AttachmentPreparer(configuration: configuration)  // Sendable; or AttachmentPreparer.shared
    let a = try await preparer.prepare(url, typeHint: "image", into: folder)  // throws(AttachmentError)
    print(a.fileURL.path, a.typeHint, a.pixelSize?.description ?? "-", a.warnings)
}

func readmeBatch(folder: URL, urls: [URL], payloads: URL) async throws {
    let batch = AttachmentBatch(folder: folder)
    for try await entry in batch.events([.urls(urls), .file(payloads)]) {  // as each item finishes
        print(entry.status, entry.action?.rawValue ?? "-", entry.fileURL?.lastPathComponent ?? entry.reason ?? "")
    }
    var options = AttachmentBatch.Options()
    options.resume = true  // after an interruption: only what is not prepared yet is fetched
    let summary = try await AttachmentBatch(folder: folder, options: options).run([.urls(urls), .file(payloads)])
    print(summary.prepared, summary.skipped, summary.manifest.path)
}

// README.md, "In a service: per-request headers, status, retry advice".
func readmeService(preparer: AttachmentPreparer, url: URL, token: String, folder: URL) async {
    var request = AttachmentRequest(url: url, typeHint: "image")
    request.headers["Authorization"] = "Bearer \(token)"
    do {
        let attachment = try await preparer.prepare(request, into: folder)
        print(attachment.fileURL.path)
    } catch {
        // AttachmentProblem(error).status: 404 for the origin's 404 (error.isRetryable == false),
        // 502 for its 503 with Retry-After: 7 (error.isRetryable, error.retryAfter == .seconds(7))
    }
}
