import Foundation
import TestSupport
import Testing

/// What `prepare` prints at each verbosity, and its short flags. Local files as inputs: no
/// network, no server. Not a terminal (pipes), so normal output is one plain line per item.
@Suite("pushattach prepare console", .tags(.slow), .notInFastTier)
struct PrepareConsoleCLITests {
    static let jpeg = Corpus.testImages.appendingPathComponent("small-320x240.jpg")
    /// Prepared with a warning and transcoded: a WebP under a .jpg name (copied into the test's
    /// folder by `misnamedWebP`). Not an animated WebP: that keeps its frames as a GIF,
    /// without a warning.
    static let webp = Corpus.testImages.appendingPathComponent("lossy-320x240.webp")
    static let misnamedWarning = "URL extension \"jpg\" says JPEG, but the bytes are WebP (image); using webp"

    /// The lossy WebP copied to `dir/lossy.jpg`.
    static func misnamedWebP(in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("lossy.jpg")
        try FileManager.default.copyItem(at: webp, to: url)
        return url
    }
    /// Rejected: the JPEG data is cut short.
    static let truncated = Corpus.testImages.appendingPathComponent("truncated.jpg")
    static let damaged = "the JPEG image data is damaged"

    /// A fresh folder under the system's temporary one, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("prepare-console-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The summary `prepare` ends with, then the empty string after its last newline.
    static func summary(_ counts: String, done: String? = nil, reasons: [String] = [], container: URL) -> [String] {
        [counts] + (done.map { ["of the prepared: \($0)"] } ?? [])
            + (reasons.isEmpty ? [] : ["top reasons:"] + reasons.map { "  " + $0 })
            + ["container: \(container.path)", "manifest:  \(container.path)/manifest.json", ""]
    }

    @Test func quietShowsOnlyTheSummary() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let result = try ProcessRunner.run(
            "pushattach",
            ["prepare", Self.jpeg.path, try Self.misnamedWebP(in: dir).path, Self.truncated.path, "--container", out.path, "-q"])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(
            Self.lines(result.stderr)
                == Self.summary(
                    "3 items: 2 prepared, 1 rejected, 0 failed", done: "1 transcoded, 1 with warnings",
                    reasons: ["1 x rejected 105 damaged"], container: out),
            "stderr: \(result.stderr)")
    }

    @Test func quietKeepsTheJSONLines() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let result = try ProcessRunner.run(
            "pushattach", ["prepare", Self.jpeg.path, "-o", out.path, "--quiet", "--json"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            Self.lines(result.stderr) == Self.summary("1 item: 1 prepared, 0 rejected, 0 failed", container: out))
        let entry = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        #expect(entry["status"] as? String == "prepared")
    }

    /// Without -v a prepared item is one line naming what was done to it and its first warning;
    /// the summary counts what was done. Every warning is in the manifest (and with -v).
    @Test func normalLineNamesWhatWasDoneAndTheFirstWarning() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let misnamed = try Self.misnamedWebP(in: dir)
        let result = try ProcessRunner.run("pushattach", ["prepare", misnamed.path, "--container", out.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = Self.lines(result.stderr)
        #expect(lines.count == 7, "stderr: \(result.stderr)")
        let prepared = try #require(
            lines.first?.wholeMatch(
                of:
                    /prepared Images\/[0-9A-F-]{36}-lossy\.jpg <- (.+) \[transcoded webp -> jpeg\] warning: (.+)/
            ))
        #expect(prepared.1 == misnamed.absoluteString[...])
        #expect(prepared.2 == Self.misnamedWarning[...])
        #expect(
            Array(lines.dropFirst())
                == [""]
                + Self.summary(
                    "1 item: 1 prepared, 0 rejected, 0 failed", done: "1 transcoded, 1 with warnings", container: out))
    }

    /// -v: each item's line (without the first warning, so none is shown twice), then every step
    /// the engine took, every warning and the timings, as the manifest entry (here printed with
    /// --json) has them.
    @Test func verboseShowsEveryStepAndWarningOnceAndTheTimingsOfEachItem() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let result = try ProcessRunner.run(
            "pushattach",
            [
                "prepare", try Self.misnamedWebP(in: dir).path, Self.truncated.path, "--container", out.path, "-j", "1", "-v",
                "--json",
            ])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        // One item at a time (-j 1): entries and lines in input order.
        let entries = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        try #require(entries.count == 2, "stdout: \(result.stdout)")
        var expected: [String] = []
        for entry in entries {
            let status = try #require(entry["status"] as? String)
            let input = try #require(entry["input"] as? String)
            let warnings = try #require(entry["warnings"] as? [String])
            let transform = entry["transform"] as? [String] ?? []
            let done = transform.contains { $0.hasPrefix("transcoded webp") } ? " [transcoded webp -> jpeg]" : ""
            expected.append(
                status == "prepared"
                    ? "prepared \(try #require(entry["file"] as? String)) <- \(input)\(done)"
                    : "\(status) \(input): \(try #require(entry["reason"] as? String))")
            expected += transform.map { "  step: \($0)" }
            expected += warnings.map { "  warning: \($0)" }
            let t = try #require(entry["timings"] as? [String: Int])
            expected.append(
                "  timings: download \(t["download_ms"] ?? -1) ms, process \(t["process_ms"] ?? -1) ms, write \(t["write_ms"] ?? -1) ms"
            )
        }
        // The misnamed WebP has a warning to show, and steps.
        #expect((entries[0]["warnings"] as? [String])?.contains(Self.misnamedWarning) == true)
        #expect(Self.lines(result.stderr).filter { $0 == "  warning: \(Self.misnamedWarning)" }.count == 1, "shown once")
        #expect(Self.lines(result.stderr).contains { $0.hasPrefix("  step: transcoded webp -> jpeg") })
        expected +=
            [""]
            + Self.summary(
                "2 items: 1 prepared, 1 rejected, 0 failed", done: "1 transcoded, 1 with warnings",
                reasons: ["1 x rejected 105 damaged"], container: out)
        #expect(Self.lines(result.stderr) == expected)
    }

    @Test func quietAndVerboseTogetherAreAUsageError() throws {
        let result = try ProcessRunner.run(
            "pushattach", ["prepare", Self.jpeg.path, "-o", "/tmp/pa-unused", "-q", "-v"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr == """
                pushattach prepare: --quiet shows only the summary and --verbose every item: choose one
                hint: run 'pushattach prepare --help'

                """)
    }

    /// `-o DIR` is `--container DIR` and `-j N` (or `-jN`) is `--concurrency N`; short switches group.
    @Test(arguments: [
        ["-o", "OUT", "-j", "2", "-q"], ["-oOUT", "-j2", "-q"], ["-qoOUT"], ["--container=OUT", "--quiet"],
    ])
    func shortFlagsStandForTheirLongNames(arguments: [String]) throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let given = arguments.map { $0.replacingOccurrences(of: "OUT", with: out.path) }
        let result = try ProcessRunner.run("pushattach", ["prepare", Self.jpeg.path] + given)
        #expect(result.status == 0, "\(given): \(result.stderr)")
        #expect(
            Self.lines(result.stderr) == Self.summary("1 item: 1 prepared, 0 rejected, 0 failed", container: out))
    }

    @Test(arguments: [
        (["-j", "0"], "pushattach prepare: --concurrency must be a whole number in 1...256, got '0'"),
        (["-j"], "pushattach prepare: --concurrency needs a value"),
        (["-x"], "pushattach prepare: unknown option '-x'"),
        (["--concurency", "4"], "pushattach prepare: unknown option '--concurency' (did you mean --concurrency?)"),
    ])
    func badShortFlagsAreUsageErrors(arguments: [String], message: String) throws {
        let result = try ProcessRunner.run(
            "pushattach", ["prepare", Self.jpeg.path, "-o", "/tmp/pa-unused"] + arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "\(message)\nhint: run 'pushattach prepare --help'\n")
    }

    /// Short forms and defaults in `--help` come from the option table and the library's types.
    @Test func helpShowsTheShortFlagsAndTheLibraryDefaults() throws {
        let result = try ProcessRunner.run("pushattach", ["prepare", "--help"])
        #expect(result.status == 0)
        let lines = Self.lines(result.stdout)
        for prefix in [
            "  -o, --container DIR ", "  -j, --concurrency N ", "  -q, --quiet ", "  -v, --verbose ", "  -h, --help ",
        ] {
            #expect(lines.contains { $0.hasPrefix(prefix) }, "no line starts with '\(prefix)'")
        }
        #expect(lines.contains { $0.hasPrefix("  --max-long-side N ") && $0.hasSuffix("(default 2048).") })
        #expect(lines.contains { $0.hasPrefix("  -j, --concurrency N ") && $0.hasSuffix("(default 16).") })
        #expect(Self.optionHelp("--timeout SECONDS", in: result.stdout).hasSuffix("(default 25)."))
        #expect(Self.optionHelp("--connect-timeout SECONDS", in: result.stdout).hasSuffix("(default 5)."))
        #expect(Self.optionHelp("--low-speed-time SECONDS", in: result.stdout).contains("as long as --timeout"))
    }

    /// An option's help in `--help`, its wrapped lines joined with single spaces.
    static func optionHelp(_ label: String, in help: String) -> String {
        let lines = Self.lines(help)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("  \(label) ") || $0 == "  \(label)" }) else { return "" }
        var text = [lines[start].dropFirst(2 + label.count)]
        for line in lines[(start + 1)...] {
            guard line.hasPrefix("   "), !line.trimmingCharacters(in: .whitespaces).hasPrefix("-") else { break }
            text.append(Substring(line))
        }
        return text.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }
}
