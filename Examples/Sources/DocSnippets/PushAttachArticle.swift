// The sample of PushAttach.docc/PushAttach.md ("Overview"), verbatim inside `moduleOverview()`.
import Foundation
import PushAttach

func moduleOverview() async throws {
    let attachment = try await AttachmentPreparer.shared.prepare(
        URL(string: "https://cdn.example.com/cat.webp")!, typeHint: "image",
        into: URL(fileURLWithPath: "/var/lib/push/attachments"))
    print(attachment.fileURL, attachment.typeHint)   // …/Images/0AF3…-cat.jpg public.jpeg
}
