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

// GettingStarted.md, "Behind an egress proxy".
func behindAProxy() -> AttachmentPreparer.Configuration {
    var configuration = AttachmentPreparer.Configuration.default
    configuration.fetch.proxy = URL(string: "http://10.0.0.8:3128")  // http or https targets (CONNECT)
    configuration.fetch.noProxy = ["cdn.internal"]  // reached directly
    // or, as curl reads them: http_proxy, https_proxy, all_proxy, no_proxy
    configuration.fetch.proxyFromEnvironment = true
    return configuration
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

// GettingStarted.md, "Errors": the answer a server sends.
func errorAnswer(url: URL, folder: URL) async {
    do {
        _ = try await AttachmentPreparer.shared.prepare(url, into: folder)
    } catch {
        let problem = AttachmentProblem(error)  // the status, the JSON body and the retry advice a server sends
        print(problem.status, problem.error, problem.retryAfterSeconds ?? 0, error.isRetryable)
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

// GettingStarted.md, "Memory": the allocator's settings.
func serverMain() {
    // first thing in main.swift, or in a @main type's static func main():
    MallocTuning.apply()  // before any work: glibc arenas and mmap threshold
    // … then start the HTTP server, with one AttachmentPreparer for the process
}
