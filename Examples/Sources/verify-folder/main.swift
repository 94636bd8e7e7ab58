// Says, for every file in a folder (recursively), whether iOS would accept it as a
// notification attachment, and if not, why.
//
//     verify-folder FOLDER
//
// Exit status: 0 when every file is accepted as it is, 1 when some is not, 2 when the folder
// cannot be read.
import ExampleSupport
import Foundation
import PushAttach

let usage = "verify-folder FOLDER"
let arguments = Arguments(usage: usage)
guard arguments.positional.count == 1 else { Arguments.fail("expected one folder", usage: usage) }
let folder = URL(fileURLWithPath: arguments.positional[0])

guard
    let enumerator = FileManager.default.enumerator(
        at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
else {
    print("cannot read \(folder.path)")
    exit(2)
}
var files: [URL] = []
for case let file as URL in enumerator
where (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
    files.append(file)
}
files.sort { $0.path < $1.path }

let verifier = AttachmentVerifier()
var counts: [AttachmentReport.Verdict: Int] = [:]
for file in files {
    let report = await verifier.verify(fileAt: file)
    counts[report.verdict, default: 0] += 1
    let name = file.path.dropFirst(folder.path.count + 1)
    switch report.verdict {
    case .accepted:
        print("accepted   \(name) \(report.typeHint ?? "")")
    case .transcode:
        print("transcode  \(name) -> \(report.transcodeTarget.map { "\($0)" } ?? "?"): \(report.reason ?? "")")
    case .rejected:
        let code = report.errorCode.map { " (UNErrorCode \($0.rawValue))" } ?? ""
        print("rejected   \(name)\(code): \(report.reason ?? "")")
    case .failed:
        print("unreadable \(name): \(report.reason ?? "")")
    }
}
let accepted = counts[.accepted, default: 0]
print(
    "\(files.count) files: \(accepted) accepted, \(counts[.transcode, default: 0]) transcode, "
        + "\(counts[.rejected, default: 0]) rejected")
exit(accepted == files.count ? 0 : 1)
