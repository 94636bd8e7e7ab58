import Foundation
import TestSupport

@testable import PushAttachExtension

/// A loopback origin with the files the loader tests fetch, and a folder per test.
struct Origin {
    let server: TestHTTPServer
    let folder: URL

    static let jpeg = try! Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
    static let webp = try! Data(contentsOf: Corpus.testImages.appendingPathComponent("lossy-320x240.webp"))
    static let html = Data(
        "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body>Not here</body></html>\n".utf8)
    /// An MPEG-1 video elementary stream's sequence header, then filler.
    static let mpeg = Data([0x00, 0x00, 0x01, 0xB3, 0x14, 0x00, 0xF0, 0x13]) + TestHTTPServer.pattern(2000)

    init() throws {
        server = try TestHTTPServer()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushattach-extension-\(UUID().uuidString)")
        server.route("/img/photo") { _ in .bytes(Origin.jpeg, contentType: "application/octet-stream") }
        server.route("/img/photo.jpg") { _ in .bytes(Origin.jpeg, contentType: "image/jpeg") }
        server.route("/img/page.jpg") { _ in .bytes(Origin.html, contentType: "text/html") }
        server.route("/img/cat.webp") { _ in .bytes(Origin.webp, contentType: "image/webp") }
    }

    /// Stops the server and removes the folder.
    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    func url(_ path: String) -> String { server.url(path) }

    /// The names in the folder (hidden ones included), sorted.
    var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    func load(
        _ userInfo: [String: Any], settings: AttachmentLoader.Settings = .init(), within budget: Duration = .seconds(60)
    ) async -> LoadedAttachment {
        await AttachmentLoader(settings: settings).load(userInfo: userInfo, into: folder, within: budget)
    }
}

/// A `serve` link path to `source` (an HMAC's length of signature; the device never checks it).
func serveLinkPath(source: String, query: String? = nil) -> String {
    let segment = Data(source.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    return "/a/" + String(repeating: "S", count: 42) + "A/" + segment + (query.map { "?" + $0 } ?? "")
}
