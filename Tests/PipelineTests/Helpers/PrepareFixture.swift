import Fetch
import Foundation
import TestSupport

@testable import Pipeline

/// A loopback server with image routes, a temporary container, and a way to run the real
/// `Preparer` over a list of URLs.
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
        // Generous: the tests are about outcomes, not speed, and run beside CPU-heavy suites
        // and under sanitizers; the drip route that must time out takes 200 s.
        options.fetch.deadline = .seconds(30)
        options.fetch.connectTimeout = .seconds(5)
        options.fetch.retryBaseDelay = .milliseconds(20)
        options.cpuThreads = 2
        return options
    }

    /// Runs the preparer and returns the summary and the final manifest's entries by input URL
    /// (the last one for each URL).
    func run(_ options: PrepareOptions) async throws -> (PrepareSummary, [String: ManifestEntry], [ManifestEntry]) {
        let summary = try await Preparer(options: options).run()
        let data = try Data(contentsOf: options.container.appendingPathComponent(Manifest.fileName))
        let document = try JSONDecoder().decode(Manifest.Document.self, from: data)
        var byInput: [String: ManifestEntry] = [:]
        for entry in document.entries { byInput[entry.input] = entry }
        return (summary, byInput, document.entries)
    }
}
