// Many requests at once on one preparer and one folder, as a server sees them: each URL is a
// `prepare(_:typeHint:into:)` call of its own, all running together in a task group. The
// preparer admits them by the memory they need (`Configuration.admissionBudget`), so the process
// stays within that budget however many arrive; the folder is shared safely (one container per
// folder per process). Prints what each call gave, then the process's peak memory.
//
//     concurrent-requests [--allow-private-networks] [--memory-budget MB] [--concurrency N] FOLDER URL...
//
// --concurrency N keeps at most N calls running (a server's connection limit); by default all
// start at once. As a server should, it applies `MallocTuning` first (PUSHATTACH_MALLOC_DEFAULTS=1
// in the environment leaves glibc's defaults, to compare).
import ExampleSupport
import Foundation
import PushAttach

MallocTuning.apply()

let usage = "concurrent-requests [--allow-private-networks] [--memory-budget MB] [--concurrency N] FOLDER URL..."
let arguments = Arguments(
    usage: usage, valued: ["--memory-budget", "--concurrency"], flags: ["--allow-private-networks"])
let (folder, urls) = arguments.folderAndURLs(usage: usage)

var configuration = AttachmentPreparer.Configuration.default
configuration.fetch.allowPrivateNetworks = arguments.has("--allow-private-networks")
if let megabytes = arguments.options["--memory-budget"].flatMap(Int.init) {
    configuration.admissionBudget = megabytes * 1_000_000
}
let preparer = AttachmentPreparer(configuration: configuration)

/// One call's outcome: the attachment, or why not.
func prepareOne(_ url: URL) async -> (URL, Result<PreparedAttachment, AttachmentError>) {
    do throws(AttachmentError) {
        return (url, .success(try await preparer.prepare(url, into: folder)))
    } catch {
        return (url, .failure(error))
    }
}

var outcomes: [(URL, Result<PreparedAttachment, AttachmentError>)] = []
let concurrency = arguments.options["--concurrency"].flatMap(Int.init).map { max(1, $0) } ?? urls.count
await withTaskGroup(of: (URL, Result<PreparedAttachment, AttachmentError>).self) { group in
    var next = 0
    while next < min(concurrency, urls.count) {
        let url = urls[next]
        group.addTask { await prepareOne(url) }
        next += 1
    }
    for await outcome in group {
        outcomes.append(outcome)
        if next < urls.count {
            let url = urls[next]
            group.addTask { await prepareOne(url) }
            next += 1
        }
    }
}

var prepared = 0
for (url, result) in outcomes {
    switch result {
    case .success(let attachment):
        prepared += 1
        print("ok     \(url.lastPathComponent) -> \(attachment.fileURL.lastPathComponent)")
    case .failure(let error):
        print("failed \(url.lastPathComponent): \(error.kind): \(error.reason)")
    }
}
/// The process's peak resident memory (VmHWM), in bytes; 0 where /proc is not there.
func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
}
print(
    "prepared \(prepared) of \(urls.count) concurrently (\(min(concurrency, urls.count)) at once), memory budget \(configuration.admissionBudget / 1_000_000) MB, peak RSS \(peakResidentBytes() / 1_000_000) MB"
)
exit(prepared == urls.count ? 0 : 1)
