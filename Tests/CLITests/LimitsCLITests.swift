import Foundation
import TestSupport
import Testing

/// One vocabulary for `verify` and `prepare`: the same limit flags with the same help and
/// defaults, and the same verdict, error code and reason for the same file. A too-large image is
/// "too large" (102), never "corrupt", and no message names a library setting.
@Suite("pushattach limits: verify and prepare alike", .tags(.slow), .notInFastTier)
struct LimitsCLITests {
    static let giant = Corpus.url("jpeg/misc/sharp_giant-image_20000x14000.jpg")
    static let photo = Corpus.testImages.appendingPathComponent("photo-1600x1200.jpg")
    static let giantReason =
        "too large: 20000x14000 is 280 MP, over the pixel budget of 50 MP; refused from its header, before decoding (raise --pixel-budget if the file is trusted)"

    static func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("limits-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func object(_ line: Substring) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    /// `verify --json PATH` as one object.
    static func verify(_ path: String, _ extra: [String] = []) throws -> (status: Int32, report: [String: Any]) {
        let result = try ProcessRunner.run("pushattach", ["verify", "--json"] + extra + [path])
        let line = try #require(result.stdout.split(separator: "\n").first, "stderr: \(result.stderr)")
        return (result.status, try object(line))
    }

    /// `prepare --json PATH` into a fresh container: the entry printed, and the console.
    static func prepare(_ path: String, _ extra: [String] = []) throws -> (
        status: Int32, entry: [String: Any], stderr: String, output: URL?
    ) {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let result = try ProcessRunner.run("pushattach", ["prepare", "--json", "-o", out.path] + extra + [path])
        let line = try #require(result.stdout.split(separator: "\n").first, "stderr: \(result.stderr)")
        let entry = try object(line)
        var output: URL?
        if let file = entry["file"] as? String {
            // Copied out before the container is removed.
            let copy = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(UUID().uuidString).jpg")
            try FileManager.default.copyItem(at: out.appendingPathComponent(file), to: copy)
            output = copy
        }
        return (result.status, entry, result.stderr, output)
    }

    /// The `--help` line(s) of `option`, up to the next option.
    static func helpEntry(_ command: String, _ option: String) throws -> String {
        let help = try ProcessRunner.run("pushattach", [command, "--help"]).stdout
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.hasPrefix("  \(option) ") }, "\(command) has no \(option)")
        let rest = lines[(start + 1)...].prefix { $0.hasPrefix("     ") }
        return ([lines[start]] + rest).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            .split(separator: " ").joined(separator: " ")
    }

    @Test(arguments: ["--pixel-budget", "--decoded-budget"])
    func bothCommandsTakeTheLimitWithTheSameHelpAndDefault(option: String) throws {
        let verify = try Self.helpEntry("verify", option)
        let prepare = try Self.helpEntry("prepare", option)
        #expect(verify == prepare)
        #expect(verify.contains(option == "--pixel-budget" ? "(default 50)" : "(default 24)"), "\(verify)")
    }

    /// A 20000x14000 JPEG: the same verdict, code and reason from both,
    /// with the flag to change it and no advice to downscale what is refused.
    @Test func tooLargeImageIsTheSameRejectionInBoth() throws {
        let verify = try Self.verify(Self.giant.path)
        #expect(verify.status == 1)
        #expect(verify.report["verdict"] as? String == "rejected")
        #expect(verify.report["error_code"] as? Int == 102)
        #expect(verify.report["reason"] as? String == Self.giantReason)
        #expect(verify.report["warnings"] as? [String] == [])

        let prepare = try Self.prepare(Self.giant.path)
        #expect(prepare.status == 1)
        #expect(prepare.entry["status"] as? String == "rejected")
        #expect(prepare.entry["error_code"] as? Int == 102)
        #expect(prepare.entry["reason"] as? String == Self.giantReason)
        #expect(prepare.entry["warnings"] as? [String] == [])
        #expect(prepare.stderr.contains(": \(Self.giantReason)\n"), "\(prepare.stderr)")
        #expect(prepare.stderr.contains("1 x rejected 102 over-pixel-budget\n"), "\(prepare.stderr)")
        for text in [prepare.stderr, "\(verify.report)"] {
            #expect(!text.contains("corrupt") && !text.contains("AttachmentPolicy") && !text.contains("DecodeOptions"))
        }
    }

    /// `--pixel-budget` moves the line in both commands alike: 1.92 MP is over 1, under 2.
    @Test func pixelBudgetFlagMovesTheLineInBoth() throws {
        let reason = "too large: 1600x1200 is 1.9 MP, over the pixel budget of 1 MP"
        let verified = try Self.verify(Self.photo.path, ["--pixel-budget", "1"])
        #expect(verified.report["error_code"] as? Int == 102)
        #expect((verified.report["reason"] as? String)?.hasPrefix(reason) == true, "\(verified.report)")
        let prepared = try Self.prepare(Self.photo.path, ["--pixel-budget", "1"])
        #expect(prepared.entry["error_code"] as? Int == 102)
        #expect((prepared.entry["reason"] as? String)?.hasPrefix(reason) == true, "\(prepared.entry)")

        #expect(try Self.verify(Self.photo.path, ["--pixel-budget", "2"]).report["verdict"] as? String == "accepted")
        let fits = try Self.prepare(Self.photo.path, ["--pixel-budget=2"])
        #expect(fits.entry["status"] as? String == "prepared", "\(fits.entry)")
        if let output = fits.output { try? FileManager.default.removeItem(at: output) }
    }

    /// `--decoded-budget`: verify warns about an image whose decode passes it; prepare fits the
    /// image under it.
    @Test func decodedBudgetFlagWarnsInVerifyAndFitsInPrepare() throws {
        let warned = try Self.verify(Self.photo.path, ["--decoded-budget", "1"])
        // iOS takes the file as it is; prepare fits it under the budget.
        #expect((warned.report["ios"] as? [String: Any])?["verdict"] as? String == "accepted")
        #expect(warned.report["verdict"] as? String == "transcode")
        #expect(warned.report["action"] as? String == "fit")
        let reason = try #require(warned.report["reason"] as? String)
        #expect(reason.contains("decodes to more than the 1 MB decoded budget"), "\(reason)")
        #expect(try Self.verify(Self.photo.path).report["warnings"] as? [String] == [])

        let prepared = try Self.prepare(Self.photo.path, ["--decoded-budget", "1"])
        #expect(prepared.entry["status"] as? String == "prepared", "\(prepared.entry)")
        let width = try #require(prepared.entry["width"] as? Int)
        let height = try #require(prepared.entry["height"] as? Int)
        #expect(width * height * 4 <= 1_000_000, "\(width)x\(height)")
        #expect(width * 3 == height * 4 || abs(width * 3 - height * 4) <= 4, "aspect kept: \(width)x\(height)")
        if let output = prepared.output { try? FileManager.default.removeItem(at: output) }
    }

    @Test(arguments: [
        (["verify", "--pixel-budget", "0", "x"], "--pixel-budget must be a number in 0.001...100000, got '0'"),
        (["prepare", "-o", "/tmp/x", "--pixel-budget", "lots", "x"], "--pixel-budget must be a number"),
        (
            ["prepare", "-o", "/tmp/x", "--decoded-budget", "0.5", "x"],
            "--decoded-budget must be a number in 1...100000"
        ),
        (["prepare", "-o", "/tmp/x", "--memory-budget", "0", "x"], "--memory-budget must be a number in 1...1000000"),
        (
            ["prepare", "-o", "/tmp/x", "--spool-budget", "lots", "x"],
            "--spool-budget must be a number in 1...10000000"
        ),
        (["verify", "--memory-budget", "64", "x"], "--memory-budget is a prepare option"),
    ])
    func badLimitsAreUsageErrors(arguments: [String], message: String) throws {
        let result = try ProcessRunner.run("pushattach", arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    /// `--memory-budget` is the run's budget, on prepare only; a tiny one still prepares.
    @Test func theProcessBudgetsAreInPreparesHelpAndATinyOneStillPrepares() throws {
        let prepareHelp = try ProcessRunner.run("pushattach", ["prepare", "--help"]).stdout
        #expect(prepareHelp.contains("--memory-budget MB"))
        #expect(prepareHelp.contains("--spool-budget MB"))
        #expect(prepareHelp.contains("--decoded-budget MB"))
        let verifyHelp = try ProcessRunner.run("pushattach", ["verify", "--help"]).stdout
        #expect(!verifyHelp.contains("--memory-budget") && !verifyHelp.contains("--spool-budget"))
        #expect(verifyHelp.contains("--decoded-budget MB"))

        let prepared = try Self.prepare(Self.photo.path, ["--memory-budget", "1", "--spool-budget", "1"])
        #expect(prepared.entry["status"] as? String == "prepared", "\(prepared.entry)")
        if let output = prepared.output { try? FileManager.default.removeItem(at: output) }
    }
}
