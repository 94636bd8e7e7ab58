// Prepares several URLs into one folder, printing progress as each finishes.
//
//     batch-progress [--allow-private-networks] FOLDER URL...
//
// At most `Configuration.maxInFlight` items run at once; each URL is yielded once, in the order
// they finish. A failed item is a result, not a thrown error: the batch goes on.
// Exit status: 0 when every URL was prepared, 1 when some was not.
import ExampleSupport
import Foundation
import PushAttach

let usage = "batch-progress [--allow-private-networks] FOLDER URL..."
let arguments = Arguments(usage: usage, flags: ["--allow-private-networks"])
let (folder, urls) = arguments.folderAndURLs(usage: usage)

var configuration = AttachmentPreparer.Configuration.default
configuration.fetch.allowPrivateNetworks = arguments.has("--allow-private-networks")
configuration.maxInFlight = 4
let preparer = AttachmentPreparer(configuration: configuration)

let clock = ContinuousClock()
let start = clock.now
var done = 0
var failed = 0
for await (url, result) in preparer.prepare(urls, into: folder) {
    done += 1
    switch result {
    case .success(let attachment):
        print("[\(done)/\(urls.count)] prepared \(url.lastPathComponent) -> \(attachment.fileURL.lastPathComponent)")
    case .failure(let error):
        failed += 1
        print("[\(done)/\(urls.count)] \(error.kind) \(url.lastPathComponent): \(error.reason)")
    }
}
let elapsed = (clock.now - start).formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow))
print("prepared \(done - failed) of \(urls.count), \(failed) failed, in \(elapsed)")
exit(failed == 0 ? 0 : 1)
