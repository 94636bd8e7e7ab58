// The sample of PushAttachBatch.docc/PushAttachBatch.md ("Overview"), verbatim inside
// `batchModuleOverview()`, compiled (never run) to prove it builds.
import Foundation
import PushAttach
import PushAttachBatch

func batchModuleOverview(folder: URL, urls: [URL], payloads: URL) async throws {
    let batch = AttachmentBatch(folder: folder)
    for try await entry in batch.events([.urls(urls), .file(payloads)]) {  // as each item finishes
        print(entry.status, entry.fileURL?.lastPathComponent ?? entry.reason ?? "")
    }
    var options = AttachmentBatch.Options()
    options.resume = true  // after an interruption: only what is not prepared yet is fetched
    let summary = try await AttachmentBatch(folder: folder, options: options).run([.urls(urls)])
    print(summary.prepared, summary.manifest.path)
}
