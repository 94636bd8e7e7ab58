import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The built `pushattach prepare` binary: exit statuses, crash safety under SIGKILL, SIGINT.
@Suite("pushattach prepare (the binary)", .serialized, .ownThread, .tags(.slow), .notInFastTier)
struct PrepareCommandTests {
    @Test func exitStatuses() throws {
        let f = try PrepareFixture()
        f.serveJPEG("/ok.jpg")
        let good = try f.list([f.server.url("/ok.jpg")])
        let out = f.dir.url.appendingPathComponent("good").path
        let ok = try ProcessRunner.run(
            "pushattach", ["prepare", good, "--container", out, "--allow-private-networks", "--json"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let line = try JSONDecoder().decode(ManifestEntry.self, from: Data(ok.stdout.utf8))
        #expect(line.status == .prepared && line.input == f.server.url("/ok.jpg"))
        #expect(ok.stderr.contains("1 prepared") && ok.stderr.contains(out + "/manifest.json"))

        let mixed = try f.list([f.server.url("/ok.jpg"), f.server.url("/status/404")])
        let some = try ProcessRunner.run(
            "pushattach",
            [
                "prepare", mixed, "--container", f.dir.url.appendingPathComponent("mixed").path,
                "--allow-private-networks", "--retries", "0",
            ])
        #expect(some.status == 1)
        #expect(some.stderr.contains("1 failed") && some.stderr.contains("HTTP 404"))

        // Usage errors: 64, one line and a hint.
        for arguments in [
            ["prepare", good], ["prepare", "--container", out], ["prepare", good, "--container", out, "--bogus"],
            ["prepare", good, "--container", out, "--concurrency", "0"],
            ["prepare", good, "--container", out],  // holds a manifest already, and no --resume
        ] {
            let usage = try ProcessRunner.run("pushattach", arguments)
            #expect(usage.status == 64, "\(arguments): \(usage.stderr)")
            #expect(usage.stderr.contains("hint: run 'pushattach prepare --help'"))
        }
        let help = try ProcessRunner.run("pushattach", ["prepare", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--container DIR") && help.stdout.contains("--resume"))
    }

    /// Killed once 40 items are done and the rest are held at the server: mid-run for certain.
    @Test func killDashNineMidRunThenResume() throws {
        let f = try PrepareFixture()
        let window = 4
        let (urls, gate) = f.heldImages(count: 300, served: 40)
        let listPath = try f.list(urls)
        let container = f.container
        let arguments =
            ["prepare", listPath, "--container", container.path, "--allow-private-networks"]
            + PrepareFixture.heldRunOptions(window: window)
        let (killed, linesAtKill) = try f.runAndSignal(arguments, gate: gate, window: window, signal: SIGKILL)
        #expect(linesAtKill == 40, "the journal when the kill was sent")
        #expect(killed.terminationReason == .uncaughtSignal, "the run finished before the kill landed")
        let beforeResume = f.journalLines(container)
        #expect(beforeResume == 40)

        let resumed = try ProcessRunner.run("pushattach", arguments + ["--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")

        // No temporary or partial file anywhere.
        let files = f.allFiles(container)
        #expect(!files.contains { $0.contains(".tmp-") })
        // Every item prepared exactly once, and the manifest matches the files one for one.
        let document = try JSONDecoder().decode(
            Manifest.Document.self, from: Data(contentsOf: container.appendingPathComponent("manifest.json")))
        #expect(document.entries.count == 300)
        // In input order, although the 40 finished before the kill and the rest after; and the
        // 40 skipped on resume added no second line to the journal.
        #expect(document.entries.map(\.input) == urls && document.entries.map(\.index) == Array(0..<300))
        #expect(f.journalLines(container) == 300)
        #expect(document.entries.allSatisfy { $0.status == .prepared })
        let referenced = document.entries.compactMap(\.file)
        let onDisk = files.filter { $0.hasPrefix("Images/") || $0.hasPrefix("Audio/") || $0.hasPrefix("Video/") }
        #expect(Set(referenced).count == 300)
        #expect(Set(referenced) == Set(onDisk) && onDisk.count == 300)
        for entry in document.entries.prefix(20) {
            let data = try Data(contentsOf: container.appendingPathComponent(entry.file!))
            #expect(data.count == entry.bytes && SHA256.hexDigest(of: data) == entry.sha256)
        }
    }

    /// Interrupted once 10 items are done and the rest are held at the server: the held ones
    /// are abandoned (no entry), the 10 are in the manifest.
    @Test func sigintWritesTheManifestAndExits130() throws {
        let f = try PrepareFixture()
        let window = 4
        let (urls, gate) = f.heldImages(count: 120, served: 10)
        let listPath = try f.list(urls)
        let container = f.container
        let arguments =
            ["prepare", listPath, "--container", container.path, "--allow-private-networks"]
            + PrepareFixture.heldRunOptions(window: window)
        let (interrupted, linesAtSignal) = try f.runAndSignal(arguments, gate: gate, window: window, signal: SIGINT)
        #expect(linesAtSignal == 10, "the journal when SIGINT was sent")
        #expect(interrupted.terminationReason == .exit && interrupted.terminationStatus == 130)
        let document = try JSONDecoder().decode(
            Manifest.Document.self, from: Data(contentsOf: container.appendingPathComponent("manifest.json")))
        #expect(document.entries.count == 10 && document.entries.allSatisfy { $0.status == .prepared })
        #expect(Set(document.entries.map(\.input)) == Set(urls.prefix(10)))
        #expect(!f.allFiles(container).contains { $0.contains(".tmp-") })
        let resumed = try ProcessRunner.run("pushattach", arguments + ["--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("already prepared (skipped)"))
        // One line per item in the journal, one entry per item in the manifest, in input order.
        #expect(f.journalLines(container) == 120)
        let entries = try f.manifestEntries(container)
        #expect(entries.map(\.input) == urls && entries.map(\.index) == Array(0..<120))
    }
}

extension PrepareCommandTests {
    @Test func aFatalContainerErrorExits2() throws {
        let f = try PrepareFixture()
        let blocker = try f.dir.file("blocker", "a file where a folder should be")
        let listPath = try f.list([f.server.url("/ok")])
        let result = try ProcessRunner.run(
            "pushattach", ["prepare", listPath, "--container", blocker.appendingPathComponent("out").path])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("ENOTDIR") || result.stderr.contains("Not a directory"))
    }
}
