import Foundation
import TestSupport
import Testing

/// The conformance set the repository carries is all there, unchanged: every file that
/// `MANIFEST.sha256` lists has its checksum, and nothing else is in the folder. The
/// corpus-driven suites trust it, so a missing fixture fails here rather than shrinking
/// a parameterised test to "no test cases".
@Suite("conformance set present and complete")
struct CorpusCompletenessTests {
    static let manifest = Corpus.bundled.appendingPathComponent("MANIFEST.sha256")

    /// (checksum, path) per manifest line.
    static func manifestEntries() throws -> [(sha256: String, path: String)] {
        let text = try String(contentsOf: manifest, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            let path = try #require(
                parts.count == 2 ? parts[1].drop { $0 == " " || $0 == "*" } : nil, "bad line: \(line)")
            return (String(parts[0]), String(path))
        }
    }

    @Test func manifestListsExactlyTheFilesInTheFolder() throws {
        let listed = try Self.manifestEntries().map(\.path)
        // Pinned, so that deleting files and their manifest lines together still fails:
        // 485 media files, 21 licence/readme files, SOURCES.md and VERIFY.tsv.
        #expect(listed.count == 508)
        #expect(Set(listed).count == listed.count, "a path is listed twice")
        var onDisk: [String] = []
        let walker = try #require(
            FileManager.default.enumerator(at: Corpus.bundled, includingPropertiesForKeys: [.isRegularFileKey]))
        for case let file as URL in walker
        where (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            let relative = String(
                file.standardizedFileURL.path.dropFirst(Corpus.bundled.standardizedFileURL.path.count + 1))
            if relative != "MANIFEST.sha256" { onDisk.append(relative) }
        }
        let missing = Set(listed).subtracting(onDisk), extra = Set(onDisk).subtracting(listed)
        #expect(missing.isEmpty, "listed but missing: \(missing.sorted())")
        #expect(extra.isEmpty, "in the folder but not listed: \(extra.sorted())")
    }

    /// `sha256sum --check` (coreutils) over the manifest: every file has its recorded bytes.
    @Test func everyFileHasItsChecksum() throws {
        let result = try ProcessRunner.runExecutable(
            URL(fileURLWithPath: "/usr/bin/sha256sum"), ["--check", "--strict", "--quiet", "MANIFEST.sha256"],
            currentDirectory: Corpus.bundled)
        #expect(result.status == 0, "sha256sum --check: \(result.stdout)\(result.stderr)")
    }

    /// Every folder the suites walk holds media in the corpus in use (bundled or external).
    @Test(arguments: Corpus.folders)
    func folderHasMedia(_ folder: String) {
        #expect(!Corpus.files(in: folder).isEmpty, "no media in \(Corpus.url(folder).path)")
    }

    /// Every bundled media file has an expected verdict (the external corpus is checked by
    /// `verdictMatchesTheTable` itself).
    @Test func everyBundledFileHasAnExpectedVerdict() throws {
        let media = try Self.manifestEntries().map(\.path).filter {
            !Corpus.isDocument(($0 as NSString).lastPathComponent)
        }
        #expect(media.count == 485)
        let unlisted = media.filter { ExpectedVerdicts.rows[$0] == nil }
        #expect(unlisted.isEmpty, "no row in TestImages/verdicts.tsv: \(unlisted)")
    }
}
