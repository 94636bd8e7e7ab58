// Prepares one URL into a folder: the five-line example of the README, as a program.
//
//     one-url [--allow-private-networks] [--type-hint HINT] URL FOLDER
//
// Loopback and private addresses are refused unless --allow-private-networks is given: the
// default is the safe one for a server that fetches URLs its senders chose.
import ExampleSupport
import Foundation
import PushAttach

let usage = "one-url [--allow-private-networks] [--type-hint HINT] URL FOLDER"
let arguments = Arguments(usage: usage, valued: ["--type-hint"], flags: ["--allow-private-networks"])
guard arguments.positional.count == 2, let url = URL(string: arguments.positional[0]) else {
    Arguments.fail("expected a URL and a folder", usage: usage)
}
let folder = URL(fileURLWithPath: arguments.positional[1])

var configuration = AttachmentPreparer.Configuration.default
configuration.fetch.allowPrivateNetworks = arguments.has("--allow-private-networks")
let preparer = AttachmentPreparer(configuration: configuration)
do {
    let a = try await preparer.prepare(url, typeHint: arguments.options["--type-hint"], into: folder)
    let size = a.pixelSize.map { "\($0)" } ?? "-"
    print("prepared \(a.fileURL.path) \(a.typeHint) \(size) \(a.byteCount) bytes")
    for step in a.steps { print("  step: \(step)") }
    for warning in a.warnings { print("  warning: \(warning)") }
} catch {
    // `error` is an AttachmentError: the stage that failed, a reason, the underlying cause.
    print("failed \(error.kind): \(error.reason)")
    exit(1)
}
