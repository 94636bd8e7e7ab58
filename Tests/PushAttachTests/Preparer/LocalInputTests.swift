import Foundation
import TestSupport
import Testing

import PushAttach

/// What a service has besides URLs (a local file, bytes in memory), and what it does with the
/// results (JSON, logs, its own ids): through the public API alone.
@Suite("preparer: local files, bytes, ids, Codable", .ownThread)
struct LocalInputTests {
    @Test func aLocalFileIsPreparedAndLeftAsItWas() async throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let source = Corpus.url(Fixtures.webp)
        let before = try Data(contentsOf: source)
        let attachment = try await Fixtures.preparer().prepare(contentsOf: source, into: folder.url)
        #expect(attachment.format == .jpeg || attachment.format == .png)
        #expect(FileManager.default.fileExists(atPath: attachment.fileURL.path))
        #expect(try Data(contentsOf: source) == before)
        let notAFile = await #expect(throws: AttachmentError.self) {
            try await Fixtures.preparer().prepare(contentsOf: URL(string: "https://cdn.example/a.jpg")!, into: folder.url)
        }
        #expect(notAFile?.kind == .invalidURL)
    }

    @Test func bytesInMemoryAreNamedByTheirFilename() async throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let bytes = try Corpus.data(Fixtures.webp)
        let attachment = try await Fixtures.preparer().prepare(bytes, filename: "cat.webp", into: folder.url)
        #expect(attachment.sourceURL.absoluteString == "bytes:cat.webp")
        #expect(attachment.fileURL.lastPathComponent.hasPrefix(attachment.identifier + "-cat."))
        #expect(attachment.format == .jpeg || attachment.format == .png)
        // A name that says PNG is a claim the bytes overrule, with a warning.
        let renamed = try await Fixtures.preparer().prepare(bytes, filename: "dog.png", into: folder.url)
        #expect(renamed.warnings.contains { $0.contains("png") }, "\(renamed.warnings)")
        let text = await #expect(throws: AttachmentError.self) {
            try await Fixtures.preparer().prepare(Data("not an image".utf8), filename: "a.jpg", into: folder.url)
        }
        #expect(text?.kind == .rejected)
    }

    @Test func aDownloadCapUnderTenMegabytesIsHonoured() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let jpeg = try Corpus.data(Fixtures.jpeg)
        server.route("/a.jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer { $0.imageDownloadCap = jpeg.count - 1 }
        let error = await #expect(throws: AttachmentError.self) {
            try await preparer.prepare(URL(string: server.url("/a.jpg"))!, into: folder.url)
        }
        #expect(error?.kind == .tooLarge, "\(String(describing: error))")
        let roomy = Fixtures.preparer { $0.imageDownloadCap = jpeg.count }
        _ = try await roomy.prepare(URL(string: server.url("/a.jpg"))!, into: folder.url)
    }

    @Test func idsResultsAndErrorsTravel() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let jpeg = try Corpus.data(Fixtures.jpeg)
        server.route("/a.jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer()

        let attachment = try await preparer.prepare(
            AttachmentRequest(url: URL(string: server.url("/a.jpg"))!, id: "notification-42"), into: folder.url)
        #expect(attachment.requestID == "notification-42")
        let json = try JSONEncoder().encode(attachment)
        #expect(try JSONDecoder().decode(PreparedAttachment.self, from: json) == attachment)

        let missing = URL(string: server.url("/status/404"))!
        let error = await #expect(throws: AttachmentError.self) {
            try await preparer.prepare(AttachmentRequest(url: missing, id: "notification-43"), into: folder.url)
        }
        #expect(error?.requestID == "notification-43")
        let described = try #require(error).description
        #expect(described.components(separatedBy: missing.absoluteString).count == 2, "the URL once: \(described)")
        #expect((error as (any Error)?)?.localizedDescription == described)
        #expect(error == error, "Equatable")
    }
}
