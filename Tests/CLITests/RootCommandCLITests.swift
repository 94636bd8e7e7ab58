import Foundation
import PushAttach
import TestSupport
import Testing

/// The root command: `--version`, and "did you mean" for a mistyped subcommand or option.
@Suite("pushattach root command", .tags(.slow), .notInFastTier)
struct RootCommandCLITests {
    /// The library's version (`PushAttachVersion`) on the first line, then each C library as it
    /// reports itself.
    @Test func versionPrintsTheToolAndTheLinkedLibraries() throws {
        let result = try ProcessRunner.run("pushattach", ["--version"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 6, "stdout: \(result.stdout)")  // five lines and the final newline
        #expect(lines.last == "")
        #expect(lines[0] == "pushattach \(PushAttachVersion.current)")
        #expect(PushAttachVersion.current.wholeMatch(of: /\d+\.\d+\.\d+/) != nil, "\(PushAttachVersion.current)")
        #expect(lines[1].wholeMatch(of: /libpng \d+\.\d+\.\d+/) != nil, "\(lines[1])")
        #expect(lines[2].wholeMatch(of: /libwebp \d+\.\d+\.\d+/) != nil, "\(lines[2])")
        #expect(lines[3].wholeMatch(of: /libheif \d+\.\d+\.\d+/) != nil, "\(lines[3])")
        #expect(lines[4].wholeMatch(of: /libcurl \d+\.\d+\.\d+( \(.+\))?/) != nil, "\(lines[4])")
    }

    @Test func versionTakesNoArguments() throws {
        let result = try ProcessRunner.run("pushattach", ["--version", "extra"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr == """
                pushattach: unexpected argument 'extra' after '--version'
                hint: run 'pushattach --help'

                """)
    }

    @Test(arguments: [
        ("verfy", "verify"), ("prepar", "prepare"), ("bnech", "bench"), ("Verify", "verify"),
    ])
    func mistypedSubcommandGetsASuggestion(typed: String, meant: String) throws {
        let result = try ProcessRunner.run("pushattach", [typed, "x"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr == """
                pushattach: unknown subcommand '\(typed)' (did you mean \(meant)?)
                hint: run 'pushattach --help'

                """)
    }

    @Test func farOffSubcommandListsTheChoices() throws {
        let result = try ProcessRunner.run("pushattach", ["frobnicate"])
        #expect(result.status == 64)
        #expect(
            result.stderr == """
                pushattach: unknown subcommand 'frobnicate' (expected one of: verify, prepare, serve, link, merge, bench, report)
                hint: run 'pushattach --help'

                """)
    }

    @Test func helpForAMistypedSubcommandGetsASuggestion() throws {
        let result = try ProcessRunner.run("pushattach", ["help", "verfy"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("pushattach: unknown subcommand 'verfy' (did you mean verify?)\n"))
    }

    @Test func mistypedRootOptionGetsASuggestion() throws {
        let result = try ProcessRunner.run("pushattach", ["--verison"])
        #expect(result.status == 64)
        #expect(
            result.stderr == """
                pushattach: unknown option '--verison' (did you mean --version?)
                hint: run 'pushattach --help'

                """)
    }

    /// The hidden generators are not advertised.
    @Test func rootHelpListsVersionButNotTheGenerators() throws {
        let result = try ProcessRunner.run("pushattach", ["--help"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("  --version ") })
        #expect(lines.contains { $0.hasPrefix("  -h, --help ") })
        #expect(!result.stdout.contains("--generate"))
    }
}
