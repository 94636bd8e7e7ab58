import Foundation
import TestSupport
import Testing

/// End-to-end: the built `pushattach` binary, its output and exit statuses.
@Suite("pushattach CLI", .tags(.slow), .notInFastTier)
struct VerifyCLITests {
    static let jsonKeys: Set<String> = [
        "path", "verdict", "action", "output_format", "ios", "format", "uti", "category", "bytes", "width", "height",
        "frames", "error_code", "refusal", "reason", "warnings",
    ]

    func fixture(_ name: String) -> String { Corpus.testImages.appendingPathComponent(name).path }

    func jsonLines(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func rootHelpAnswers() throws {
        let result = try ProcessRunner.run("pushattach", ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: pushattach <subcommand>"))
        #expect(result.stdout.contains("verify"))
    }

    @Test func verifyHelpAnswers() throws {
        let result = try ProcessRunner.run("pushattach", ["verify", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: pushattach verify"))
        #expect(result.stdout.contains("--json"))
        #expect(result.stdout.contains("EXIT STATUS"))
    }

    @Test(arguments: [
        ([String](), "USAGE"),
        (["frobnicate"], "unknown subcommand 'frobnicate'"),
        (["verify"], "no PATH given"),
        (["verify", "--jsno", "x"], "unknown option '--jsno' (did you mean --json?)"),
        (["verify", "--pixel-budget", "lots", "x"], "--pixel-budget must be a number"),
    ])
    func usageErrorsExit64(arguments: [String], message: String) throws {
        let result = try ProcessRunner.run("pushattach", arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
        #expect(result.stdout.isEmpty)
    }

    @Test func acceptedFileExitsZeroWithExactJSONKeys() throws {
        let result = try ProcessRunner.run("pushattach", ["verify", "--json", fixture("small-320x240.jpg")])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try jsonLines(result.stdout)
        #expect(lines.count == 1)
        let object = try #require(lines.first)
        #expect(Set(object.keys) == Self.jsonKeys)
        #expect(object["verdict"] as? String == "accepted")
        #expect(object["format"] as? String == "jpeg")
        #expect(object["uti"] as? String == "public.jpeg")
        #expect(object["category"] as? String == "image")
        #expect(object["width"] as? Int == 320)
        #expect(object["height"] as? Int == 240)
        #expect(object["error_code"] is NSNull)
        #expect(object["reason"] is NSNull)
    }

    @Test func mixedFolderExitsOneWithAVerdictPerFile() throws {
        let result = try ProcessRunner.run("pushattach", ["verify", "--json", Corpus.testImages.path])
        #expect(result.status == 1)
        let lines = try jsonLines(result.stdout)
        let root = Corpus.testImages.path + "/"
        let byName = Dictionary(
            uniqueKeysWithValues: lines.map {
                (String(($0["path"] as! String).dropFirst(root.count)), $0)
            })
        #expect(byName["small-320x240.jpg"]?["verdict"] as? String == "accepted")
        #expect(byName["lossy-320x240.webp"]?["verdict"] as? String == "transcode")
        #expect(byName["alpha-lossless-256x256.webp"]?["verdict"] as? String == "transcode")
        // iOS would refuse it as it is (101, it goes by the name); prepare writes it as .jpg.
        #expect(byName["jpeg-named.png"]?["verdict"] as? String == "transcode")
        #expect(byName["jpeg-named.png"]?["action"] as? String == "rename")
        #expect(byName["jpeg-named.png"]?["error_code"] is NSNull)
        #expect((byName["jpeg-named.png"]?["ios"] as? [String: Any])?["error_code"] as? Int == 101)
        #expect(byName["truncated.jpg"]?["error_code"] as? Int == 105)
        // Found in a folder, a file that is not media at all is skipped, not a rejected attachment
        // (named on the command line, it is rejected 101: `VerifyPathsCLITests`); --json says so.
        #expect(byName["not-media.txt"]?["verdict"] as? String == "skipped")
        #expect(byName["not-media.txt"]?["action"] as? String == "skip")
        #expect(byName["animated-120x90.gif"]?["frames"] as? Int == 3)
        #expect(byName["tone-1s.wav"]?["category"] as? String == "audio")
        for line in lines { #expect(Set(line.keys) == Self.jsonKeys) }
    }

    @Test func humanOutputHasOneLinePerFileAndASummary() throws {
        let result = try ProcessRunner.run(
            "pushattach", ["verify", fixture("small-320x240.jpg"), fixture("lossy-320x240.webp")])
        #expect(result.status == 0, "both reach a device")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("verdict    action        ios           format  uti ") == true, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("accepted   pass-through  accepted      jpeg    public.jpeg ") })
        #expect(lines.contains { $0.hasPrefix("transcode  convert       rejected 101  webp    org.webmproject.webp ") })
        #expect(lines.suffix(2) == ["2 files: 1 accepted, 1 transcode, 0 rejected", "as they are, iOS would take 1 and refuse 1"])
    }

    /// Damaged data is rejected (105) unless accepted on request; strict and accepting damage
    /// together is a usage error.
    @Test func damagedImagesAreRejectedUnlessAccepted() throws {
        let truncated = fixture("truncated.jpg")
        let rejected = try ProcessRunner.run("pushattach", ["verify", "--json", truncated])
        #expect(rejected.status == 1)
        let report = try #require(try jsonLines(rejected.stdout).first)
        #expect(report["error_code"] as? Int == 105)
        #expect((report["reason"] as? String)?.contains("image data is damaged") == true)

        let accepted = try ProcessRunner.run("pushattach", ["verify", "--json", "--accept-damaged", truncated])
        #expect(accepted.status == 0, "\(accepted.stdout)")
        let warnings = try #require(try jsonLines(accepted.stdout).first?["warnings"] as? [String])
        #expect(warnings.contains("damaged JPEG used as decoded (damaged images accepted)"), "\(warnings)")

        for command in ["verify", "prepare"] {
            var arguments = [command, "--strict", "--accept-damaged", truncated]
            if command == "prepare" {
                arguments += ["--container", FileManager.default.temporaryDirectory.path + "/pa-unused"]
            }
            let both = try ProcessRunner.run("pushattach", arguments)
            #expect(both.status == 64, "\(command): \(both.stderr)")
            #expect(both.stderr.contains("choose one"), "\(both.stderr)")
        }
    }
}
