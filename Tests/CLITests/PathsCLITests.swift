import Foundation
import TestSupport
import Testing

/// PATH and INPUT arguments as `ls` and `identify` treat them: a missing one is reported and the
/// others still checked; a folder's README is not an attachment; a name iOS cannot type is
/// renamed by `prepare` (iOS would refuse it as it is); and `prepare` with nothing it can read refuses before creating anything.
@Suite("pushattach paths", .tags(.slow), .notInFastTier)
struct PathsCLITests {
    static let jpeg = Corpus.testImages.appendingPathComponent("small-320x240.jpg")
    static let notMedia = Corpus.testImages.appendingPathComponent("not-media.txt")

    static func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("paths-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func verifyReportsAMissingPathAndChecksTheOthers() throws {
        let missing = "/nonexistent-\(UUID().uuidString).jpg"
        let result = try ProcessRunner.run("pushattach", ["verify", Self.jpeg.path, missing])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr == "pushattach verify: no such file or folder: \(missing)\n")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("accepted ") && $0.hasSuffix(Self.jpeg.path) }, "\(result.stdout)")
        #expect(
            lines.suffix(3)
                == ["1 file: 1 accepted, 0 transcode, 0 rejected", "as they are, iOS would take 1 and refuse 0", "not found: \(missing)"])

        let json = try ProcessRunner.run("pushattach", ["verify", "--json", missing, Self.jpeg.path])
        #expect(json.status == 1)
        #expect(json.stderr.contains("no such file or folder: \(missing)"))
        let reports = try Self.jsonLines(json.stdout)
        #expect(reports.count == 1 && reports.first?["verdict"] as? String == "accepted")
    }

    @Test func verifyWithOnlyMissingPathsExitsOneNotSixtyFour() throws {
        let result = try ProcessRunner.run("pushattach", ["verify", "/no/such/a.jpg", "/no/such/b.jpg"])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 2, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("not found: /no/such/a.jpg, /no/such/b.jpg\n"), "\(result.stdout)")
    }

    /// In a folder: the README is skipped and counted, not a rejected attachment; a JPEG named
    /// without an extension is one iOS would refuse (101, it types a file by its extension) and
    /// `prepare` renames. Named on
    /// the command line, a file that is not media is rejected (101).
    @Test func folderSkipsWhatIsNotMediaAndRenamesANameWithoutExtension() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: Self.jpeg, to: dir.appendingPathComponent("photo.jpg"))
        try FileManager.default.copyItem(at: Self.jpeg, to: dir.appendingPathComponent("photo"))
        try Data("# Attachments\n".utf8).write(to: dir.appendingPathComponent("README.md"))
        try FileManager.default.copyItem(at: Self.notMedia, to: dir.appendingPathComponent("notes.txt"))

        let result = try ProcessRunner.run("pushattach", ["verify", "--json", dir.path])
        // Renamed by prepare, the nameless JPEG reaches a device: nothing fails the default gate.
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let reports = try Self.jsonLines(result.stdout)
        let byName = Dictionary(
            uniqueKeysWithValues: reports.map { (URL(fileURLWithPath: $0["path"] as! String).lastPathComponent, $0) })
        #expect(Set(byName.keys) == ["photo", "photo.jpg", "README.md", "notes.txt"])
        // What is not media in a folder is a "skipped" line, in --json too.
        #expect(byName["README.md"]?["verdict"] as? String == "skipped")
        #expect(byName["notes.txt"]?["action"] as? String == "skip")
        #expect(byName["photo.jpg"]?["verdict"] as? String == "accepted")
        // iOS cannot type it as it is (101); prepare names it .jpg.
        #expect(byName["photo"]?["verdict"] as? String == "transcode")
        #expect(byName["photo"]?["action"] as? String == "rename")
        #expect((byName["photo"]?["ios"] as? [String: Any])?["error_code"] as? Int == 101)
        #expect((byName["photo"]?["reason"] as? String)?.contains("rename it to .jpg") == true)

        let table = try ProcessRunner.run("pushattach", ["verify", dir.path])
        #expect(table.stdout.contains("2 files: 1 accepted, 1 transcode, 0 rejected\n"), "\(table.stdout)")
        #expect(
            table.stdout.hasSuffix("skipped, not media: 2 files in folders: README.md (plain text), notes.txt (plain text)\n"),
            "\(table.stdout)")

        let named = try ProcessRunner.run(
            "pushattach", ["verify", "--json", dir.appendingPathComponent("README.md").path])
        #expect(named.status == 1)
        #expect(try Self.jsonLines(named.stdout).first?["error_code"] as? Int == 101)
    }

    /// Nothing `prepare` can read: a usage error naming each INPUT and why, and no container.
    @Test func prepareWithNoReadableInputRefusesBeforeCreatingTheContainer() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let missing = dir.appendingPathComponent("missing.txt").path
        let result = try ProcessRunner.run(
            "pushattach", ["prepare", missing, "https://cdn.example/a.jpg", "-o", out.path])
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr.hasPrefix("pushattach prepare: no INPUT can be read: \(missing) (no such file or folder), "))
        #expect(result.stderr.contains("https://cdn.example/a.jpg (no such file; a URL goes in a list file"))
        #expect(result.stderr.contains("hint: run 'pushattach prepare --help'"))
        #expect(!FileManager.default.fileExists(atPath: out.path), "the container was created")
    }

    /// With something to read, the unreadable INPUT is a failed item and the run goes on.
    @Test func prepareWithSomeReadableInputReportsTheRest() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let missing = dir.appendingPathComponent("missing.txt").path
        let result = try ProcessRunner.run("pushattach", ["prepare", missing, Self.jpeg.path, "-o", out.path])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("failed \(missing): cannot open: "), "\(result.stderr)")
        #expect(result.stderr.contains("2 items: 1 prepared, 0 rejected, 1 failed"))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path))
    }

    /// A folder as INPUT, as mogrify takes one: its media files (not its notes), its sub-folders
    /// with -r.
    @Test func aFolderGivesItsMediaFilesAndRecursiveItsSubFolders() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let media = dir.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media.appendingPathComponent("sub"), withIntermediateDirectories: true)
        for (file, target) in [
            ("small-320x240.jpg", "a.jpg"), ("lossy-320x240.webp", "b.webp"), ("gray-400x300.jpg", "sub/c.jpg"),
        ] {
            try FileManager.default.copyItem(
                at: Corpus.testImages.appendingPathComponent(file), to: media.appendingPathComponent(target))
        }
        try Data("notes, not a list\n".utf8).write(to: media.appendingPathComponent("README.txt"))
        // An archive is binary but no media: passed over, not rejected.
        try Data([0x50, 0x4B, 0x03, 0x04] + Array(repeating: 0, count: 60)).write(to: media.appendingPathComponent("all.zip"))
        let flat = try ProcessRunner.run("pushattach", ["prepare", media.path, "-o", dir.appendingPathComponent("flat").path, "-q"])
        #expect(flat.status == 0, "\(flat.stderr)")
        #expect(flat.stderr.hasPrefix("2 items: 2 prepared"), "\(flat.stderr)")
        let deep = try ProcessRunner.run(
            "pushattach", ["prepare", media.path, "-r", "-o", dir.appendingPathComponent("deep").path, "-q"])
        #expect(deep.status == 0, "\(deep.stderr)")
        #expect(deep.stderr.hasPrefix("3 items: 3 prepared"), "\(deep.stderr)")
    }

    /// Paths of local media files on standard input (`find … | pushattach prepare -`); on
    /// 1709ac3 each was "not a URL". A local file that is not media is said to be one (not "not a
    /// URL"), and nothing of it reaches the manifest but its name: a `find` over a home folder must
    /// not copy a `.netrc`'s first bytes into a report that may be uploaded.
    @Test func localPathsOnStandardInputArePrepared() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let paths = ["small-320x240.jpg", "lossy-320x240.webp"].map { Corpus.testImages.appendingPathComponent($0).path }
        let result = try ProcessRunner.run(
            "pushattach", ["prepare", "-", "-o", dir.appendingPathComponent("out").path, "-q"],
            stdin: Data((paths.joined(separator: "\n") + "\n").utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("2 items: 2 prepared"), "\(result.stderr)")

        let text = dir.appendingPathComponent("notes.jpg")
        try Data("<html>not a photo</html>\n".utf8).write(to: text)
        let out = dir.appendingPathComponent("mixed")
        let mixed = try ProcessRunner.run(
            "pushattach", ["prepare", "-", "-o", out.path, "-q"], stdin: Data((paths[0] + "\n" + text.path + "\n").utf8))
        // Named .jpg, it is judged as media and refused as not media (101), as `verify` and a
        // folder walk refuse it; nothing of it reaches the manifest.
        #expect(mixed.status == 1 && mixed.stderr.hasPrefix("2 items: 1 prepared, 1 rejected, 0 failed"), "\(mixed.stderr)")
        #expect(mixed.stderr.contains("1 x rejected 101 not-media"), "\(mixed.stderr)")
        let manifest = try String(contentsOf: out.appendingPathComponent("manifest.json"), encoding: .utf8)
        #expect(!manifest.contains("3c68746d6c3e") && !manifest.contains("not a photo"), "\(manifest)")
    }

    /// An empty list (only comments and blank lines) is "nothing to prepare", exit 1, and no
    /// container is made (not exit 0 and an empty container).
    @Test func anEmptyListMakesNoContainer() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let list = dir.appendingPathComponent("empty.txt")
        try Data("# nothing yet\n\n".utf8).write(to: list)
        let out = dir.appendingPathComponent("out")
        let result = try ProcessRunner.run("pushattach", ["prepare", list.path, "-o", out.path])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("nothing to prepare"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
