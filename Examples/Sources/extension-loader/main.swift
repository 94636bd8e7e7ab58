// extension-loader: what a Notification Service Extension does with a push, with nothing but the
// PushAttachExtension product (no C library, no other PushAttach module): it loads the media a
// payload names into a folder within a time budget, then prints and checks the result.
//
//     extension-loader [--budget SECONDS] FOLDER URL
//
// The URL goes into a payload as `attachment-url`, the way a push carries it. One line is
// printed: `file NAME TYPE-HINT in N ms`, or `no file in N ms: REASON`. Then the checks an
// extension relies on: the load returned within the budget and a second; a file is in FOLDER and
// named with the extension of its type hint; with no file, FOLDER holds nothing at all (no part
// of a download left behind). Exit status 0 when every check held, 1 when one did not, 64 on a
// usage error.
import Foundation
import PushAttachExtension

let usage = "extension-loader [--budget SECONDS] FOLDER URL"
var arguments = Array(CommandLine.arguments.dropFirst())
var budget = Duration.seconds(25)
if arguments.first == "--budget" {
    guard arguments.count > 1, let seconds = Int(arguments[1]), seconds > 0 else { fail("--budget needs whole seconds") }
    budget = .seconds(seconds)
    arguments.removeFirst(2)
}
guard arguments.count == 2, URL(string: arguments[1]) != nil else { fail("expected a folder and a URL") }
let folder = URL(fileURLWithPath: arguments[0], isDirectory: true)

let payload: [AnyHashable: Any] = ["aps": ["mutable-content": 1, "alert": "New photo"], "attachment-url": arguments[1]]
let clock = ContinuousClock()
let started = clock.now
let loaded = await AttachmentLoader().load(userInfo: payload, into: folder, within: budget)
let elapsed = clock.now - started
let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000

var problems: [String] = []
if elapsed > budget + .seconds(1) {
    problems.append("took \(milliseconds) ms, over the budget of \(budget) and a second")
}
let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
if let file = loaded.fileURL, let typeHint = loaded.typeHint {
    print("file \(file.lastPathComponent) \(typeHint) in \(milliseconds) ms")
    if !FileManager.default.fileExists(atPath: file.path) { problems.append("\(file.path) does not exist") }
    if file.deletingLastPathComponent().standardizedFileURL.path != folder.standardizedFileURL.path {
        problems.append("\(file.path) is not in \(folder.path)")
    }
    // iOS types the file by its name: the extension must be one of the hint's type.
    let extensions = MediaFormat.allCases.filter { $0.uti == typeHint }.flatMap(\.allExtensions)
    if !extensions.contains(file.pathExtension) {
        problems.append("\(file.lastPathComponent) is not named .\(extensions.first ?? "?") for \(typeHint)")
    }
} else {
    print("no file in \(milliseconds) ms: \(loaded.reason ?? "no reason given")")
    if !names.isEmpty { problems.append("left behind in \(folder.path): \(names.joined(separator: ", "))") }
}
for problem in problems { print("FAILED: \(problem)") }
exit(problems.isEmpty ? 0 : 1)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\nusage: \(usage)\n".utf8))
    exit(64)
}
