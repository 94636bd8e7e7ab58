// The first screen of README.md, verbatim inside `readme()`, with its two imports (URL is
// Foundation's: `import PushAttach` alone does not make it visible).
import Foundation
import PushAttach

func readme() async throws {
    let url = URL(string: "https://cdn.example.com/cat.webp")!
    let folder = URL(fileURLWithPath: "/var/lib/push/attachments")
    var configuration = AttachmentPreparer.Configuration.default
    configuration.fetch.allowPrivateNetworks = false  // the default; also limits, rules, naming, budgets
    let preparer = AttachmentPreparer(configuration: configuration)  // Sendable; or AttachmentPreparer.shared
    let a = try await preparer.prepare(url, typeHint: "image", into: folder)  // throws(AttachmentError)
    print(a.fileURL.path, a.typeHint, a.pixelSize?.description ?? "-", a.warnings)
}
