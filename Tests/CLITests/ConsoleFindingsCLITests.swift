import Foundation
import TestSupport
import Testing

/// What `prepare` prints: the size tags, a fatal error alone, payload problems counted from 1.
@Suite(.tags(.slow), .notInFastTier) struct ConsoleFindingsCLITests {
    static func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// An animation scaled to the long side gets a "resized to" tag with the size the manifest
    /// records (the GIF encoder's "sized" step counts, and a JPEG shrunk again to fit 10 MB
    /// shows its last size).
    @Test func aScaledGIFIsTaggedWithTheSizeWritten() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let gif = Corpus.testImages.appendingPathComponent("animated-120x90.webp")
        let result = try ProcessRunner.run("pushattach", ["prepare", gif.path, "-o", out.path, "--max-long-side", "60", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let width = try #require(entry["width"] as? Int), height = try #require(entry["height"] as? Int)
        #expect(width == 60)
        #expect(result.stderr.contains("[transcoded webp -> gif, resized to \(width)x\(height)]"), "\(result.stderr)")
        #expect(result.stderr.contains("of the prepared: 1 transcoded, 1 resized"), "\(result.stderr)")
    }

    /// A container in use is a fatal error: no "0 items" summary and no journal that does not
    /// exist before it.
    @Test func aFatalErrorBeforeAnyItemPrintsOnlyTheError() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        // Another process holds the container's lock: flock(1) takes it, says so, and keeps it
        // until its standard input closes.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [out.appendingPathComponent(".pushattach.lock").path, "-c", "echo held; exec cat"]
        let said = Pipe()
        let input = Pipe()
        holder.standardOutput = said
        holder.standardInput = input
        try holder.run()
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        let line = said.fileHandleForReading.availableData
        #expect(String(decoding: line, as: UTF8.self) == "held\n", "the lock is held")
        let jpeg = Corpus.testImages.appendingPathComponent("small-320x240.jpg")
        let result = try ProcessRunner.run("pushattach", ["prepare", jpeg.path, "-o", out.path])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(!result.stderr.contains("0 items"), "\(result.stderr)")
        #expect(!result.stderr.contains("journal:"), "\(result.stderr)")
        #expect(!result.stderr.contains("manifest:"), "\(result.stderr)")
        #expect(result.stderr.contains("pushattach prepare: "), "\(result.stderr)")
    }

    /// A JSON array's elements are counted from 1 in messages (never from 0), and "top
    /// reasons" groups by what went wrong (the failure's word), not by the words of its reason.
    @Test func payloadProblemsCountFromOneAndGroupByWhatWentWrong() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pushes = dir.appendingPathComponent("pushes.json")
        try Data("[\n  {\"a\": 1},\n  {\"b\": 2}\n]\n".utf8).write(to: pushes)
        let result = try ProcessRunner.run("pushattach", ["prepare", pushes.path, "-o", dir.appendingPathComponent("out").path])
        #expect(result.stderr.contains("element 1 of the JSON array"), "\(result.stderr)")
        #expect(result.stderr.contains("element 2 of the JSON array"), "\(result.stderr)")
        #expect(!result.stderr.contains("element 0 "), "\(result.stderr)")
        #expect(result.stderr.contains("  2 x failed no-url"), "\(result.stderr)")
        #expect(!result.stderr.contains("x element"), "\(result.stderr)")
    }
}

/// Loopback URLs without --allow-private-networks: the hint once, then in the summary; the URL
/// not twice on a line (no line repeats both, and the summary keeps the hint).
@Suite(.tags(.slow), .notInFastTier) struct PrivateNetworkHintCLITests {
    @Test func theHintIsGivenOnceAndInTheSummary() throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let dir = try ConsoleFindingsCLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let urls = (1...5).map { origin.url("/\($0).jpg") }.joined(separator: "\n") + "\n"
        let result = try ProcessRunner.run(
            "pushattach", ["prepare", "-", "-o", dir.appendingPathComponent("out").path], stdin: Data(urls.utf8))
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let failed = lines.filter { $0.hasPrefix("failed ") }
        #expect(failed.count == 5, "\(result.stderr)")
        #expect(failed.filter { $0.contains("--allow-private-networks") }.count == 1, "\(result.stderr)")
        for line in failed {
            let url = try #require(line.split(separator: " ").dropFirst().first).dropLast()  // "failed URL: …"
            #expect(line.components(separatedBy: String(url)).count == 2, "the URL once: \(line)")
        }
        #expect(lines.contains("hint: 5 items were refused as loopback or private addresses: pass --allow-private-networks to fetch from them"), "\(result.stderr)")
        #expect(origin.hits("/1.jpg") == 0)
    }
}

/// A URL with a user name and password is fetched with them, and shown without them everywhere
/// prepare writes: the console (human and JSON), the journal, manifest.json and report.html.
@Suite(.tags(.slow), .notInFastTier) struct CredentialsInURLsCLITests {
    @Test func noOutputOfPrepareShowsAPassword() throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        origin.route("/ok.jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") }
        origin.route("/note.jpg") { _ in .text("not a picture\n") }
        let dir = try ConsoleFindingsCLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let withCredentials = { (path: String) in
            origin.url(path).replacingOccurrences(of: "http://", with: "http://user:s3cretpw@")
        }
        let urls = ["/ok.jpg", "/note.jpg", "/status/404", "/status/503"].map(withCredentials).joined(separator: "\n") + "\n"
        var outputs: [String] = []
        for extra in [["--report"], ["--json", "--resume"]] {
            let result = try ProcessRunner.run(
                "pushattach", ["prepare", "-", "-o", out.path, "--allow-private-networks", "--retries", "0"] + extra,
                stdin: Data(urls.utf8))
            #expect(result.status == 1, "\(result.stderr)")
            outputs += [result.stdout, result.stderr]
        }
        let files = FileManager.default.enumerator(at: out, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where ["json", "jsonl", "html"].contains(file.pathExtension) {
            outputs.append(try String(contentsOf: file, encoding: .utf8))
        }
        #expect(files.contains { $0.lastPathComponent == "report.html" })
        for output in outputs {
            #expect(!output.contains("s3cretpw"), "\(output.prefix(2000))")
        }
        let all = outputs.joined()
        #expect(all.contains("http://***@127.0.0.1:\(origin.port)/ok.jpg"), "the URL is still shown, without its credentials")
        #expect(origin.hits("/ok.jpg") == 1, "the second run resumed: the prepared item is not fetched again")
        let manifest = try String(contentsOf: out.appendingPathComponent("manifest.json"), encoding: .utf8)
        #expect(manifest.contains("http://***@127.0.0.1:\(origin.port)/status/404"))
    }
}
