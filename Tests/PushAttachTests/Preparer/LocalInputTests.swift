import Foundation
import Synchronization
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

    @Test func uploadsOfOneNameNeverShareAFileEvenWithStableNames() async throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer { $0.stableNames = true }
        let a = try await preparer.prepare(try Corpus.data(Fixtures.jpeg), filename: "image.jpg", into: folder.url)
        let b = try await preparer.prepare(try Corpus.data(Fixtures.webp), filename: "image.jpg", into: folder.url)
        #expect(a.fileURL != b.fileURL)
        #expect(FileManager.default.fileExists(atPath: a.fileURL.path) && FileManager.default.fileExists(atPath: b.fileURL.path))
        #expect(try Data(contentsOf: a.fileURL).count == a.byteCount)
    }

    @Test func aDownloadCapUnderTenMegabytesIsHonoured() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let jpeg = try Fixtures.serveJPEG(on: server)
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
        try Fixtures.serveJPEG(on: server)
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

/// The hook a service routes into its logs and metrics, and a clean stop.
@Suite("preparer: events and shutdown", .ownThread)
struct EventsAndShutdownTests {
    @Test func everyCallIsToldOnceWithItsTimings() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        try Fixtures.serveJPEG(on: server)
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let events = Mutex<[AttachmentEvent]>([])
        let preparer = Fixtures.preparer { configuration in
            configuration.onEvent = { event in events.withLock { $0.append(event) } }
        }
        _ = try await preparer.prepare(
            AttachmentRequest(url: URL(string: server.url("/a.jpg"))!, id: "n1"), into: folder.url)
        _ = try? await preparer.prepare(URL(string: server.url("/status/503"))!, into: folder.url)
        let seen = events.withLock { $0 }
        #expect(seen.map(\.outcome) == [.prepared, .failed])
        #expect(seen[0].requestID == "n1" && seen[0].format == .jpeg && seen[0].action != nil)
        #expect(seen[0].byteCount ?? 0 > 0 && seen[0].download + seen[0].process + seen[0].write > .zero)
        #expect(seen[1].reason?.contains("503") == true)
    }

    /// Every call is told, those refused before any fetch included, with its request's id:
    /// seven calls, three refused at once (no URL, `ftp:`, a header with CR LF), seven events.
    @Test func everyCallIsToldRefusedOnesIncluded() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let jpeg = try Corpus.data(Fixtures.jpeg)
        server.route("/a.jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let events = Mutex<[AttachmentEvent]>([])
        let preparer = Fixtures.preparer { configuration in
            configuration.onEvent = { event in events.withLock { $0.append(event) } }
        }
        let good = URL(string: server.url("/a.jpg"))!
        var withBreak = AttachmentRequest(url: good, id: "crlf")
        withBreak.headers["X-Tenant"] = "a\r\nHost: evil"
        var thrown = 0
        func call(_ body: () async throws -> PreparedAttachment) async {
            do { _ = try await body() } catch { thrown += 1 }
        }
        await call { try await preparer.prepare(AttachmentRequest(url: good, id: "ok"), into: folder.url) }
        await call { try await preparer.prepare("not a url", into: folder.url) }
        await call { try await preparer.prepare(AttachmentRequest(url: URL(string: "ftp://cdn.example/a.jpg")!, id: "ftp"), into: folder.url) }
        await call { try await preparer.prepare(withBreak, into: folder.url) }
        await call { try await preparer.prepare(URL(string: server.url("/status/404"))!, into: folder.url) }
        await call { try await preparer.prepare(Data("not an image".utf8), filename: "a.jpg", into: folder.url) }
        await call { try await preparer.prepare(contentsOf: Corpus.url(Fixtures.webp), into: folder.url) }

        let seen = events.withLock { $0 }
        #expect(thrown == 5)
        #expect(seen.count == 7)
        #expect(seen.map(\.outcome) == [.prepared, .failed, .failed, .failed, .failed, .rejected, .prepared])
        #expect(seen.map(\.requestID) == ["ok", nil, "ftp", "crlf", nil, nil, nil])
        #expect(seen[1].url.absoluteString == "invalid:not%20a%20url")
        #expect(seen[2].url.scheme == "ftp" && seen[3].url == good)
        #expect(seen[1...3].allSatisfy { $0.reason != nil && $0.download == .zero && $0.byteCount == nil })
        #expect(server.hits("/a.jpg") == 1)
    }

    @Test func shutdownWaitsForTheCallsAndRefusesLaterOnes() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let gate = TestHTTPServer.Gate()
        let jpeg = try Corpus.data(Fixtures.jpeg)
        server.route("/slow.jpg") { _ in
            TestHTTPServer.Response(status: 200, headers: [("Content-Type", "image/jpeg")], body: .held(jpeg, first: 100, gate: gate))
        }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer()
        let url = URL(string: server.url("/slow.jpg"))!
        let calls = (0..<3).map { _ in Task { try await preparer.prepare(url, into: folder.url) } }
        #expect(await gate.wait { $0.waiting == 3 } != nil, "the three calls are held at the server")
        // When the shutdown returns: whether it did, and the files the calls have written by then.
        let shutDown = Watched<Int?>(nil)
        let imagesFolder = folder.url.appendingPathComponent("Images")
        let stopped = Task {
            await preparer.shutdown()
            shutDown.update { $0 = FolderEvents.names(in: imagesFolder).count }
        }
        // Once a call of another folder is refused, the shutdown has begun; the three calls are
        // still held, so it must still be waiting for them.
        let probe = TemporaryFolder()
        defer { probe.remove() }
        try Fixtures.serveJPEG(on: server, at: "/probe.jpg")
        while true {
            do {
                _ = try await preparer.prepare(URL(string: server.url("/probe.jpg"))!, into: probe.url)
            } catch {
                #expect(error.kind == .cancelled, "\(error)")
                break
            }
        }
        #expect(shutDown.value == nil, "shutdown returned while calls were in progress")
        gate.open()
        for call in calls { _ = try await call.value }
        await stopped.value
        #expect(shutDown.value == 3, "every call's file was written before the shutdown returned")
        #expect(folder.spoolLeftovers.isEmpty, "\(folder.spoolLeftovers)")
        #expect(folder.names(in: "Images").count == 3)
        let refused = await #expect(throws: AttachmentError.self) { try await preparer.prepare(url, into: folder.url) }
        #expect(refused?.kind == .cancelled && refused?.reason.contains("shut down") == true)
    }
}
