// Runs a batch as `pushattach prepare` does, from a service: URLs into one folder with a
// manifest, then the same batch resumed, which downloads nothing that is prepared already.
//
//     batch-manifest [--allow-private-networks] FOLDER URL...
//
// Prints one line per finished item, the summary with the manifest's path, and the resumed
// run's summary. Exit status: 0 when every URL was prepared and the resume skipped them all.
import ExampleSupport
import Foundation
import PushAttach
import PushAttachBatch

let usage = "batch-manifest [--allow-private-networks] FOLDER URL..."
let arguments = Arguments(usage: usage, flags: ["--allow-private-networks"])
let (folder, urls) = arguments.folderAndURLs(usage: usage)

var configuration = AttachmentPreparer.Configuration.default
configuration.fetch.allowPrivateNetworks = arguments.has("--allow-private-networks")

do {
    // 1. The batch, each entry as it finishes.
    let batch = AttachmentBatch(folder: folder, configuration: configuration)
    for try await entry in batch.events([.urls(urls)]) {
        let what = entry.fileURL?.lastPathComponent ?? entry.reason ?? ""
        print("\(entry.status.rawValue) \(entry.action?.rawValue ?? "-") \(what)")
    }
    let manifest = folder.appendingPathComponent("manifest.json")
    print("manifest \(FileManager.default.fileExists(atPath: manifest.path) ? "written" : "missing"): \(manifest.path)")

    // 2. The same batch resumed: what is prepared, with its file in place, is skipped.
    var options = AttachmentBatch.Options()
    options.resume = true
    let again = try await AttachmentBatch(folder: folder, configuration: configuration, options: options).run([
        .urls(urls)
    ])
    print("resumed: \(again.skipped) skipped, \(again.prepared) prepared, \(again.failed) failed")
    exit(again.skipped == urls.count && again.prepared == 0 ? 0 : 1)
} catch {
    print("batch failed: \(error)")
    exit(1)
}
