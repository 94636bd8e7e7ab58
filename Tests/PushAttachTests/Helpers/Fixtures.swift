import Foundation
import PushPayloads
import TestSupport

@testable import PushAttach

/// A fresh folder under the temporary directory, removed by `remove()`.
struct TemporaryFolder {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pushattach-lib-\(UUID().uuidString)")
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    /// Names in `sub` (an attachment folder or `.spool`), hidden ones included; empty when missing.
    func names(in sub: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent(sub).path)) ?? []
    }

    /// Spool folders left in the folder (`.spool`, a process's `.spool.p-…`), with what is in
    /// each: empty once every call has returned.
    var spoolLeftovers: [String] {
        names(in: "").filter { $0.hasPrefix(".spool") }.map { "\($0): \(names(in: $0))" }
    }

    /// Every file under the folder except the lock, relative to it.
    var files: [String] {
        let root = url.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [String] = []
        while let next = walker.nextObject() as? String {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + next, isDirectory: &isFolder)
            if !isFolder.boolValue, next != ".pushattach.lock" { found.append(next) }
        }
        return found.sorted()
    }
}

enum Fixtures {
    static let jpeg = "orientation/Landscape_1.jpg"
    static let webp = "webp/image-webp/gallery1/1.webp"
    static let photo = "photos/kodak_pixpro_fz201.jpg"
    static let broken = "broken/jpeg/jd_empty.jpg"

    /// A preparer allowed to reach the loopback server.
    /// Routes `path` of `server` to the fixture JPEG (`image/jpeg`); returns its bytes.
    @discardableResult
    static func serveJPEG(on server: TestHTTPServer, at path: String = "/a.jpg") throws -> Data {
        let jpeg = try Corpus.data(Fixtures.jpeg)
        server.route(path) { _ in .bytes(jpeg, contentType: "image/jpeg") }
        return jpeg
    }

    /// The call deadline of the tests' preparers: every suite runs in one process on a 2-core
    /// machine, where a call may wait minutes for a thread of the cooperative pool that blocking
    /// suites hold, so the 25 s default would end calls before their first attempt. The deadline
    /// itself is tested by CallDeadlineTests with deadlines of its own.
    static let callDeadline: Duration = HangGuard.wait

    static func preparer(_ change: (inout AttachmentPreparer.Configuration) -> Void = { _ in })
        -> AttachmentPreparer
    {
        var configuration = AttachmentPreparer.Configuration.default
        configuration.callDeadline = callDeadline
        configuration.fetch.allowPrivateNetworks = true
        configuration.fetch.maxRetries = 0
        change(&configuration)
        return AttachmentPreparer(configuration: configuration)
    }

    /// SHA-256 of the file, lower-case hex, by `sha256sum` (an implementation other than ours).
    static func sha256(of url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }

    /// `<UUID>-<name>.<ext>`.
    static func isAttachmentName(_ name: String, ext: String) -> Bool {
        let parts = name.split(separator: "-", maxSplits: 5)
        guard parts.count == 6, UUID(uuidString: parts[0...4].joined(separator: "-")) != nil else { return false }
        return name.hasSuffix("." + ext)
    }
}
