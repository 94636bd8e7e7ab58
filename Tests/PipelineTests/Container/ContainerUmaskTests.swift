import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// Attachments and `manifest.json` are created 0666 and the umask narrows them, as for any file
/// a tool writes (never a fixed 0644 whatever the umask).
@Suite("Container: new files respect the umask", .tags(.slow), .notInFastTier)
struct ContainerUmaskTests {
    /// In this process (whose umask the tests do not change: it is process-wide).
    @Test func atomicWriteLeavesTheModeToTheUmask() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let umask = try #require(Self.currentUmask())
        let target = dir.url.appendingPathComponent("a.jpg")
        try AtomicWriter.write(Data("x".utf8), to: target)
        let mode = try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int
        #expect(mode == 0o666 & ~umask)
    }

    /// The binary under `umask 077`: every attachment and `manifest.json` is 0600, readable by
    /// its owner only (nothing chmods it back to 0644).
    @Test func aRunUnderUmask077WritesPrivateFiles() throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        let list = try f.list([f.server.url("/a.jpg")])
        let out = f.dir.url.appendingPathComponent("private")
        let run = try ProcessRunner.runExecutable(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", #"umask 077 && exec "$0" "$@""#, ProcessRunner.product("pushattach").path,
                "prepare", list, "--container", out.path, "--allow-private-networks",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let files = f.attachmentFiles(out).sorted() + [Manifest.fileName]
        #expect(files.count == 2, "\(files)")
        for file in files {
            let path = out.appendingPathComponent(file).path
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file): \(String(mode ?? 0, radix: 8))")
        }
    }

    /// The process's umask, from `/proc/self/status` (reading it with umask(2) would change it).
    static func currentUmask() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Umask:") {
            return Int(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        }
        return nil
    }
}
