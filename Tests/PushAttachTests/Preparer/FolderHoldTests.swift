import Foundation
import TestSupport
import Testing

@testable import PushAttach

/// `AttachmentPreparer.hold(_:)`: a folder's pipeline kept between calls. The pipeline's own
/// spool folder (`.spool.p-<random>`, made when the pipeline starts and removed when it stops)
/// shows whether it lived on.
@Suite struct FolderHoldTests {
    private static func spoolFolders(_ folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
            .filter { $0.hasPrefix(Container.privateSpoolPrefix) }.sorted()
    }

    @Test func aHeldFolderKeepsOnePipelineAcrossCallsUntilReleased() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/cat.jpg") { _ in .bytes(try! Corpus.data(Fixtures.jpeg), contentType: "image/jpeg") }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer()

        let hold = try preparer.hold(folder.url)
        let started = try Self.spoolFolders(folder)
        #expect(started.count == 1)
        _ = try await preparer.prepare(server.url("/cat.jpg"), into: folder.url)
        _ = try await preparer.prepare(server.url("/cat.jpg"), into: folder.url)
        #expect(try Self.spoolFolders(folder) == started, "the calls ran in the held pipeline")

        hold.release()
        hold.release()
        await preparer.waitUntilIdle()
        #expect(try Self.spoolFolders(folder).isEmpty)
    }

    @Test func withoutAHoldEachCallStartsThePipelineAnew() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/cat.jpg") { _ in .bytes(try! Corpus.data(Fixtures.jpeg), contentType: "image/jpeg") }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer()

        _ = try await preparer.prepare(server.url("/cat.jpg"), into: folder.url)
        await preparer.waitUntilIdle()

        #expect(try Self.spoolFolders(folder).isEmpty)
    }

    @Test func shutdownEndsEveryHoldAndLaterHoldsAreRefused() async throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer()
        let hold = try preparer.hold(folder.url)

        await preparer.shutdown()

        #expect(try Self.spoolFolders(folder).isEmpty)
        let error = #expect(throws: AttachmentError.self) { try preparer.hold(folder.url) }
        #expect(error?.kind == .cancelled)
        hold.release()
    }

    @Test func aFolderThatCannotBeMadeIsAWriteFailure() throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let file = folder.url.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)

        let error = #expect(throws: AttachmentError.self) { try Fixtures.preparer().hold(file) }
        #expect(error?.kind == .writeFailed)
    }
}
