import Foundation
import TestSupport
import Testing

/// `prepare` ends cleanly when its output goes away (`prepare … | head -3`: no death by SIGPIPE,
/// no `.spool/` left, a `manifest.json`), and writes only into the container it opened when that
/// is swapped for a link mid-run (`manifest.json` and `report.html` never go where the link points).
///
/// The binary runs against a loopback server whose held route puts the test in charge of when
/// the last items finish: the output is closed, or the container swapped, while they are held.
@Suite("pushattach prepare: closed output, swapped container", .ownThread, .tags(.slow), .notInFastTier)
struct PrepareClosedOutputCLITests {
    static let jpeg = (try? Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))) ?? Data()

    /// A fresh folder under the system's temporary one, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("closed-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A server with `/a.jpg` served at once and `/b.jpg`, `/c.jpg` held at the returned gate, and
    /// a list of the three in `dir`.
    static func server(listIn dir: URL) throws -> (TestHTTPServer, TestHTTPServer.Gate, URL) {
        let server = try TestHTTPServer()
        server.route("/a.jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") }
        let gate = TestHTTPServer.Gate()
        for path in ["/b.jpg", "/c.jpg"] { server.hold(path, gate: gate, .bytes(jpeg, contentType: "image/jpeg")) }
        let list = dir.appendingPathComponent("list.txt")
        try Data(["/a.jpg", "/b.jpg", "/c.jpg"].map { server.url($0) + "\n" }.joined().utf8).write(to: list)
        return (server, gate, list)
    }

    /// `pushattach ARGS` with its standard output and error on pipes the test reads (and may
    /// close).
    final class Child {
        let process = Process()
        let out = Pipe()
        let err = Pipe()

        init(_ arguments: [String]) throws {
            process.executableURL = ProcessRunner.product("pushattach")
            process.arguments = arguments
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        /// Blocks until `pipe` has something to read, reads at most `count` bytes of it, then
        /// closes the reading end: the child's next write there fails (EPIPE, or SIGPIPE).
        static func readSomeAndClose(_ pipe: Pipe, count: Int = 8) throws -> Int {
            var buffer = [UInt8](repeating: 0, count: count)
            let got = read(pipe.fileHandleForReading.fileDescriptor, &buffer, count)
            try pipe.fileHandleForReading.close()
            return got
        }

        /// Reads `pipe` to its end on a thread of its own, so the child never blocks on it.
        static func drain(_ pipe: Pipe) -> Watched<Data?> {
            let box = Watched<Data?>(nil)
            Thread.detachNewThread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                box.update { $0 = data }
            }
            return box
        }

        /// Waits for the child; its status, or nil when a signal ended it.
        func exitStatus() -> Int32? {
            process.waitUntilExit()
            return process.terminationReason == .exit ? process.terminationStatus : nil
        }
    }

    /// What a cleanly ended run leaves: `manifest.json` with every item, no `.spool/` (or an
    /// empty one), and the lock free: a `--resume` run can take the container at once and finds
    /// everything prepared.
    static func expectFinished(_ container: URL, list: URL, _ comment: String) throws {
        let manifest = container.appendingPathComponent("manifest.json")
        let data = try #require(try? Data(contentsOf: manifest), "no manifest.json; \(comment)")
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try #require(document["entries"] as? [[String: Any]])
        #expect(entries.count == 3 && entries.allSatisfy { $0["status"] as? String == "prepared" }, "\(entries)")
        let spool =
            (try? FileManager.default.contentsOfDirectory(atPath: container.appendingPathComponent(".spool").path))
            ?? []
        #expect(spool.isEmpty, "left in .spool: \(spool)")
        let again = try ProcessRunner.run(
            "pushattach", ["prepare", list.path, "-o", container.path, "--resume", "--allow-private-networks", "-q"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("3 already prepared (skipped)"), "\(again.stderr)")
    }

    /// `prepare … --json | head -c 8`: the reader goes after the first line; the two held items
    /// finish after, their lines have nowhere to go, and the run still ends as it would have.
    @Test func closedStandardOutputEndsTheRunCleanly() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (server, gate, list) = try Self.server(listIn: dir)
        defer { server.stop() }
        let container = dir.appendingPathComponent("out")

        let child = try Child(["prepare", list.path, "-o", container.path, "--json", "--allow-private-networks"])
        let stderr = Child.drain(child.err)
        #expect(try Child.readSomeAndClose(child.out) > 0, "the first item's JSON line")
        gate.open()
        let status = child.exitStatus()
        let said = String(decoding: (stderr.waitBlocking { $0 != nil } ?? nil) ?? Data(), as: UTF8.self)
        #expect(status == 0, "ended by a signal (nil) or another status; stderr: \(said)")
        try Self.expectFinished(container, list: list, said)
        #expect(said.contains("3 items: 3 prepared"), "stderr still gets the summary: \(said)")
    }

    /// `prepare … 2>&1 | head -c 8` for standard error: the progress lines and the summary have
    /// nowhere to go after the first.
    @Test func closedStandardErrorEndsTheRunCleanly() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (server, gate, list) = try Self.server(listIn: dir)
        defer { server.stop() }
        let container = dir.appendingPathComponent("out")

        let child = try Child(["prepare", list.path, "-o", container.path, "--allow-private-networks"])
        let stdout = Child.drain(child.out)
        #expect(try Child.readSomeAndClose(child.err) > 0, "the first item's line")
        gate.open()
        let status = child.exitStatus()
        #expect(status == 0, "ended by a signal (nil) or another status")
        _ = stdout.waitBlocking { $0 != nil }
        try Self.expectFinished(container, list: list, "stderr was closed")
    }

    /// `prepare … 2>&-`: standard error closed before the start. Its number must not go to a
    /// file of the run (the lock, the journal), or the progress lines would be written into it.
    @Test func standardErrorClosedBeforeTheStartWritesNothingIntoTheContainer() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (server, gate, list) = try Self.server(listIn: dir)
        defer { server.stop() }
        gate.open()
        let container = dir.appendingPathComponent("out")
        let binary = ProcessRunner.product("pushattach").path
        let run = try ProcessRunner.runExecutable(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", "exec \"$0\" \"$@\" 2>&-", binary, "prepare", list.path, "-o", container.path,
                "--allow-private-networks",
            ])
        #expect(run.status == 0, "\(run.stdout)")
        try Self.expectFinished(container, list: list, "stderr was closed before the start")
        let lock = try String(contentsOf: container.appendingPathComponent(".pushattach.lock"), encoding: .utf8)
        #expect(lock.allSatisfy { $0.isNumber || $0 == "\n" }, "the lock holds only a PID: \(lock)")
        let journal = try String(contentsOf: container.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        #expect(journal.split(separator: "\n").allSatisfy { $0.hasPrefix("{") }, "only JSON lines: \(journal)")
    }

    /// `prepare --report` while the container is renamed and a link to another folder put in its
    /// place: `manifest.json` and `report.html` land in the container the run opened (now
    /// `moved`), nothing in the link's target.
    @Test func containerSwappedMidRunKeepsItsManifestAndReport() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (server, gate, list) = try Self.server(listIn: dir)
        defer { server.stop() }
        let container = dir.appendingPathComponent("out")
        let moved = dir.appendingPathComponent("moved")
        let other = dir.appendingPathComponent("other")

        let child = try Child(["prepare", list.path, "-o", container.path, "--report", "--allow-private-networks"])
        let stdout = Child.drain(child.out)
        let stderr = Child.drain(child.err)
        #expect(gate.waitBlocking { $0.waiting == 2 } != nil, "both held items reached the server")
        try FileManager.default.moveItem(at: container, to: moved)
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: container.path, withDestinationPath: other.path)
        gate.open()
        let status = child.exitStatus()
        _ = stdout.waitBlocking { $0 != nil }
        let said = String(decoding: (stderr.waitBlocking { $0 != nil } ?? nil) ?? Data(), as: UTF8.self)
        #expect(status == 0, "\(said)")
        #expect(said.contains("was moved or replaced during the run"), "\(said)")
        #expect(
            ((try? FileManager.default.contentsOfDirectory(atPath: other.path)) ?? []) == [],
            "written where the link points")
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: moved.path)) ?? []
        for name in ["manifest.json", "manifest.jsonl", "report.html"] {
            #expect(kept.contains(name), "\(name) not in the container the run opened: \(kept)")
        }
    }
}
