import Fetch
import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// A loopback server with image routes, a temporary container, and a way to run the real
/// `BatchRunner` over a list of URLs.
final class PrepareFixture {
    let server: TestHTTPServer
    let dir: TemporaryDirectory
    static let jpeg: Data =
        (try? Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))) ?? Data()

    init() throws {
        server = try TestHTTPServer()
        dir = try TemporaryDirectory()
    }

    deinit {
        server.stop()
        dir.remove()
    }

    var container: URL { dir.url.appendingPathComponent("out") }

    /// Serves the small JPEG at `path` with `contentType`.
    func serveJPEG(_ path: String, contentType: String? = "image/jpeg", extraHeaders: [(String, String)] = []) {
        server.route(path) { _ in
            var response = TestHTTPServer.Response.bytes(Self.jpeg, contentType: contentType)
            response.headers += extraHeaders
            return response
        }
    }

    /// Options for a run over `lines` (written to a list file), private networks allowed.
    func options(_ lines: [String], container: URL? = nil) throws -> PrepareOptions {
        let list = try dir.file("list-\(UUID().uuidString).txt", lines.joined(separator: "\n") + "\n")
        var options = PrepareOptions(container: container ?? self.container, inputs: [list.path])
        options.fetch.allowPrivateNetworks = true
        // No short limits: the tests are about outcomes, not speed, and run beside CPU-heavy
        // suites (on one core, too) and under sanitizers; a request held at the server may wait
        // as long as the test takes to release it. A test of a timeout sets that one limit short.
        options.fetch.deadline = HangGuard.wait
        options.fetch.connectTimeout = .seconds(30)
        options.fetch.lowSpeedLimit = 0
        options.fetch.retryBaseDelay = .milliseconds(20)
        options.cpuThreads = 2
        return options
    }

    /// Runs the preparer and returns the summary and the final manifest's entries by input URL
    /// (the last one for each URL).
    func run(_ options: PrepareOptions) async throws -> (PrepareSummary, [String: ManifestEntry], [ManifestEntry]) {
        let summary = try await BatchRunner(options: options).run()
        let (byInput, entries) = try manifest(options.container)
        return (summary, byInput, entries)
    }

    /// The final manifest's entries in `container`, by input URL (the last one for each URL)
    /// and in order.
    func manifest(_ container: URL) throws -> ([String: ManifestEntry], [ManifestEntry]) {
        let data = try Data(contentsOf: container.appendingPathComponent(Manifest.fileName))
        let document = try JSONDecoder().decode(Manifest.Document.self, from: data)
        var byInput: [String: ManifestEntry] = [:]
        for entry in document.entries { byInput[entry.input] = entry }
        return (byInput, document.entries)
    }
}
