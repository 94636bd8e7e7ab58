import Foundation
import TestSupport
import Testing

/// `pushattach bench` away from the repository's root: no default folder is a usage error that
/// says what to pass; its output names `pushattach bench`, not `pushattach-bench`.
@Suite("pushattach bench folder", .tags(.slow), .notInFastTier)
struct BenchFolderCLITests {
    /// A fresh folder under the system's temporary one, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bench-folder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func outsideTheRepositoryWithoutAFolderIsAUsageErrorNamingFolder() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try ProcessRunner.run("pushattach", ["bench", "--rounds", "1"], currentDirectory: dir)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let here = dir.resolvingSymlinksInPath().path
        #expect(
            result.stderr == """
                pushattach bench: no images to measure: there is no ../shared/corpus/photos or TestImages/conformance/photos here (\(here)); run from the repository's root, or pass --folder DIR with JPEG, PNG or WebP images
                hint: run 'pushattach bench --help'

                """)
    }

    @Test func aFolderWithoutImagesIsAUsageError() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try ProcessRunner.run(
            "pushattach", ["bench", "--rounds", "1", "--folder", dir.path, "--workload", "w1"], currentDirectory: dir)
        #expect(result.status == 64)
        #expect(
            result.stderr == """
                pushattach bench: no JPEG, PNG, WebP, HEIC or AVIF images under \(dir.path); pass --folder DIR with some
                hint: run 'pushattach bench --help'

                """)
    }

    @Test func bannerNamesTheSubcommand() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try ProcessRunner.run(
            "pushattach",
            ["bench", "--rounds", "1", "--threads", "1", "--workload", "w1", "--folder", Corpus.testImages.path],
            currentDirectory: dir)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let banner = try #require(result.stdout.split(separator: "\n").first)
        #expect(banner.hasPrefix("pushattach bench: "), "\(banner)")
        #expect(banner.contains(" images from \(Corpus.testImages.path), median of 1 rounds, "), "\(banner)")
        #expect(!result.stdout.contains("pushattach-bench"))
    }

    @Test func helpShowsTheTableOfBenchmarkKit() throws {
        let result = try ProcessRunner.run("pushattach", ["bench", "--help"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("OVERVIEW: Measure decode/resize/encode throughput") == true)
        #expect(lines.contains { $0.hasPrefix("  --workload LIST ") && $0.hasSuffix("(default w1,w2,w3).") })
        #expect(lines.contains { $0.hasPrefix("  --rounds N ") && $0.hasSuffix("(default 5).") })
        #expect(lines.contains { $0.hasPrefix("  --folder DIR ") })
        #expect(lines.contains("USAGE: pushattach bench [options]"))
    }

    /// A copy of `pushattach` alone in a folder, with a PATH that has no `pushattach-bench`: the
    /// hand-over fails with one line saying what to build, and the status of a fatal error.
    @Test func withoutTheBenchmarkBesideItSaysWhatToBuild() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("pushattach")
        try FileManager.default.copyItem(at: ProcessRunner.product("pushattach"), to: copy)
        let result = try ProcessRunner.runExecutable(copy, ["bench", "--rounds", "1"], environment: ["PATH": dir.path])
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                pushattach bench: pushattach-bench is not beside \(dir.resolvingSymlinksInPath().path) nor on PATH; build it with 'swift build -c release --product pushattach-bench' (or 'make bench')

                """)
    }
}
