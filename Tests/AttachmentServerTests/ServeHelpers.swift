import AttachmentServer
import Foundation
import PushAttach
import TestSupport

/// An origin (TestHTTPServer) and an AttachmentServer on loopback, with a fresh cache folder.
final class ServeRig {
    let origin: TestHTTPServer
    let server: AttachmentServer
    let signer = AttachmentSigner(key: Array("test signing key".utf8))
    let folder: URL

    init(configure: (inout AttachmentServer.Configuration) -> Void = { _ in }) throws {
        origin = try TestHTTPServer()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        var configuration = AttachmentServer.Configuration(cacheFolder: folder)
        configuration.port = 0
        configuration.signer = signer
        configuration.preparer.fetch.allowPrivateNetworks = true
        configuration.accessLogPath = nil
        // A preparation's awaits run on Swift's shared cooperative pool, which the CPU-bound suites
        // running beside these may hold for many seconds: a generous deadline, so only the test
        // that is about the deadline sees a 504.
        configuration.deadline = .seconds(180)
        configure(&configuration)
        server = try AttachmentServer(configuration: configuration)
    }

    deinit {
        server.stop()
        origin.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Serves `file` of TestImages at `/name` on the origin.
    func serve(_ file: String, as path: String, type: String) throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent(file))
        origin.route(path) { _ in .bytes(data, contentType: type) }
    }

    /// The signed path of the origin's `path`.
    func link(_ path: String, typeHint: String? = nil, thumbnail: Int? = nil) -> String {
        AttachmentLink(source: URL(string: origin.url(path))!, typeHint: typeHint, thumbnailSize: thumbnail)
            .path(signedBy: signer)
    }

    func get(_ path: String, method: String = "GET", headers: [(String, String)] = []) throws -> TestHTTPClient.Response {
        try TestHTTPClient.get(port: server.port, path: path, method: method, headers: headers, timeout: .seconds(300))
    }

    /// The JSON error body of `response`.
    func problem(_ response: TestHTTPClient.Response) throws -> AttachmentProblem {
        try JSONDecoder().decode(AttachmentProblem.self, from: response.body)
    }
}

/// A value shared by a test and the threads it starts.
final class SharedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

extension ServeRig {
    /// Waits until the server's `/metrics` text holds `line` (a preparation's state changes on
    /// the server's threads), woken by each change: true once it does, false after `timeout`
    /// (a broken test).
    func waitForMetric(_ line: String, timeout: Duration = .seconds(60)) -> Bool {
        server.waitForMetrics(timeout: timeout) { $0.split(separator: "\n").contains(Substring(line)) }
    }
}
