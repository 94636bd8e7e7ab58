import Foundation
import PushPayloads
import TestSupport
import Testing

@testable import PushAttach

@Suite struct PrepareOneTests {
    @Test func oneURLIsPreparedIntoTheImagesFolder() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/cat.jpg") { _ in .bytes(try! Corpus.data(Fixtures.jpeg), contentType: "image/jpeg") }
        let folder = TemporaryFolder()
        defer { folder.remove() }

        let attachment = try await Fixtures.preparer().prepare(
            server.url("/cat.jpg"), typeHint: "image", into: folder.url)

        #expect(FileManager.default.fileExists(atPath: attachment.fileURL.path))
        #expect(attachment.fileURL.deletingLastPathComponent().lastPathComponent == "Images")
        #expect(Fixtures.isAttachmentName(attachment.fileURL.lastPathComponent, ext: "jpg"))
        #expect(attachment.fileURL.lastPathComponent.hasPrefix(attachment.identifier + "-cat"))
        #expect(attachment.typeHint == "public.jpeg")
        #expect(attachment.format == .jpeg)
        #expect(attachment.pixelSize != nil)
        #expect(attachment.sha256 == (try Fixtures.sha256(of: attachment.fileURL)))
        let bytes = try Data(contentsOf: attachment.fileURL)
        #expect(attachment.byteCount == bytes.count)
        #expect(folder.spoolLeftovers.isEmpty, "\(folder.spoolLeftovers)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("manifest.json").path))
    }

    @Test func aWebPIsTranscoded() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/pic.webp") { _ in .bytes(try! Corpus.data(Fixtures.webp), contentType: "image/webp") }
        let folder = TemporaryFolder()
        defer { folder.remove() }

        let attachment = try await Fixtures.preparer().prepare(server.url("/pic.webp"), into: folder.url)

        #expect(attachment.format == .jpeg || attachment.format == .png)
        #expect(attachment.typeHint == attachment.format.uti)
        #expect(attachment.fileURL.pathExtension == attachment.format.fileExtension)
        #expect(attachment.steps.contains { $0.contains("webp") })
        let report = await AttachmentVerifier().verify(fileAt: attachment.fileURL)
        #expect(report.verdict == .accepted)
    }

    @Test func a404FailsAsADownloadAndLeavesNothing() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let url = server.url("/status/404")

        let error = await #expect(throws: AttachmentError.self) {
            try await Fixtures.preparer().prepare(url, into: folder.url)
        }
        #expect(error?.kind == .downloadFailed)
        #expect(error?.url?.absoluteString == url)
        if case .fetch(.httpStatus(_, let status, _)) = error?.underlying {
            #expect(status == 404)
        } else {
            Issue.record("expected the fetch error as the cause, got \(String(describing: error?.underlying))")
        }
        #expect(folder.files.isEmpty)
    }

    @Test func aLoopbackURLIsRefusedByDefault() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/cat.jpg") { _ in .bytes(try! Corpus.data(Fixtures.jpeg), contentType: "image/jpeg") }
        let folder = TemporaryFolder()
        defer { folder.remove() }

        let error = await #expect(throws: AttachmentError.self) {
            var configuration = AttachmentPreparer.Configuration.default  // private networks refused
            configuration.callDeadline = Fixtures.callDeadline
            return try await AttachmentPreparer(configuration: configuration).prepare(server.url("/cat.jpg"), into: folder.url)
        }
        #expect(error?.kind == .blocked)
        #expect(server.hits("/cat.jpg") == 0)
        #expect(folder.files.isEmpty)
        #expect(!(error?.description.contains("--") ?? true))
    }

    @Test func otherSchemesAndBadStringsAreRefused() async throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let local = await #expect(throws: AttachmentError.self) {
            try await AttachmentPreparer.shared.prepare(URL(fileURLWithPath: "/etc/passwd"), into: folder.url)
        }
        #expect(local?.kind == .blocked)
        let bad = await #expect(throws: AttachmentError.self) {
            try await AttachmentPreparer.shared.prepare("not a url", into: folder.url)
        }
        #expect(bad?.kind == .invalidURL)
    }
}

@Suite struct PrepareRejectionTests {
    @Test func bytesThatAreNoMediaAreRejectedWithTheirCode() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/cat.jpg") { _ in .bytes(Data("<html>not found</html>".utf8), contentType: "image/jpeg") }
        let folder = TemporaryFolder()
        defer { folder.remove() }

        let error = await #expect(throws: AttachmentError.self) {
            try await Fixtures.preparer().prepare(server.url("/cat.jpg"), typeHint: "image", into: folder.url)
        }
        #expect(error?.kind == .rejected)
        // HTML is no media whatever its URL or Content-Type says: "not media" (101), as `verify`
        // says of a file named .jpg that holds it.
        #expect(error?.errorCode == .unrecognizedType)
        #expect(error?.refusal == .notMedia(.html))
        #expect(folder.files.isEmpty)
    }

    @Test func aSpooledBodyIsPreparedAndTheSpoolIsLeftEmpty() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/photo.jpg") { _ in .bytes(try! Corpus.data(Fixtures.jpeg), contentType: "image/jpeg") }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer {
            $0.fetch.spoolThreshold = 10_000
            $0.thumbnailSize = 128
        }

        let attachment = try await preparer.prepare(server.url("/photo.jpg"), into: folder.url)
        await preparer.waitUntilIdle()

        #expect(attachment.sha256 == (try Fixtures.sha256(of: attachment.fileURL)))
        let thumbnail = try #require(attachment.thumbnailURL)
        #expect(thumbnail.deletingLastPathComponent().lastPathComponent == "Thumbnails")
        #expect(FileManager.default.fileExists(atPath: thumbnail.path))
        #expect(folder.spoolLeftovers.isEmpty, "\(folder.spoolLeftovers)")
    }
}
