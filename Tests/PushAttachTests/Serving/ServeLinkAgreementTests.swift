import Foundation
import PushAttach
import PushPayloads
import Testing

/// The links `AttachmentLink` writes are the ones `ServeLink` (what the extension recognises in a
/// payload) reads, with the same source and type hint.
@Suite("Serve links: what AttachmentLink writes, ServeLink reads")
struct ServeLinkAgreementTests {
    @Test(arguments: [
        ("https://cdn.example.com/cat.webp", "image" as String?),
        ("http://cms.example.com:8080/media/photo?id=12&size=large", "image/jpeg; q=1"),
        ("https://cdn.example.com/Z%C3%BCrich%20photo.jpg", nil),
        ("https://cdn.example.com/clip", "public.mpeg-4"),
    ])
    func signedLinksAreRecognised(source: String, typeHint: String?) throws {
        let signer = AttachmentSigner(key: Array("a key of the backend's".utf8))
        let link = AttachmentLink(source: try #require(URL(string: source)), typeHint: typeHint)
        for signing in [signer, nil] {
            let url = try #require(URL(string: "https://attach.example.com" + link.path(signedBy: signing)))
            let read = try #require(ServeLink(url), "\(url)")
            #expect(read.source == link.source)
            #expect(read.typeHint == typeHint)
        }
    }
}
