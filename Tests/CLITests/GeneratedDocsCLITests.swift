import Foundation
import TestSupport
import Testing

/// The man page and the completion scripts are generated from the option tables behind
/// `--help`, and committed: each test regenerates one and compares it with the committed file,
/// so they cannot drift. On a difference, regenerate (the command is in the failure message).
@Suite("pushattach generated docs", .tags(.slow), .notInFastTier)
struct GeneratedDocsCLITests {
    static let manPage = "docs/pushattach.1"
    static let scripts = [("bash", "completions/pushattach.bash"), ("zsh", "completions/_pushattach")]

    func committed(_ path: String) throws -> String {
        try String(contentsOf: Corpus.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func manPageMatchesTheCommittedOne() throws {
        let result = try ProcessRunner.run("pushattach", ["--generate-manpage"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(
            result.stdout == (try committed(Self.manPage)),
            "regenerate: .build/debug/pushattach --generate-manpage > \(Self.manPage)")
    }

    @Test(arguments: scripts)
    func completionScriptMatchesTheCommittedOne(shell: String, path: String) throws {
        let result = try ProcessRunner.run("pushattach", ["--generate-completion-script", shell])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            result.stdout == (try committed(path)),
            "regenerate: .build/debug/pushattach --generate-completion-script \(shell) > \(path)")
    }

    /// Every option every subcommand's `--help` lists is in the man page and both scripts.
    @Test func everyOptionInHelpIsInTheManPageAndTheScripts() throws {
        let man = try ProcessRunner.run("pushattach", ["--generate-manpage"]).stdout
        let bash = try ProcessRunner.run("pushattach", ["--generate-completion-script", "bash"]).stdout
        let zsh = try ProcessRunner.run("pushattach", ["--generate-completion-script", "zsh"]).stdout
        for command in ["verify", "prepare", "bench"] {
            let help = try ProcessRunner.run("pushattach", [command, "--help"]).stdout
            let names = Set(
                help.matches(of: /(?m)^  (?:(-[a-z]), )?(--[a-z-]+)/).flatMap { [$0.1, $0.2].compactMap { $0 } })
            #expect(names.contains("--help") && names.count > 3, "\(command): \(names)")
            for name in names.map(String.init) {
                #expect(
                    man.contains("\\fB" + name.replacingOccurrences(of: "-", with: "\\-") + "\\fR"),
                    "\(command) \(name)")
                #expect(bash.contains(" \(name)"), "bash: \(command) \(name)")
                #expect(zsh.contains(name), "zsh: \(command) \(name)")
            }
        }
    }

    /// The bash script completes subcommands, options and option values as a shell would.
    @Test(arguments: [
        (["pushattach", "ver"], "verify"),
        (["pushattach", "prepare", "--con"], "--container --connect-timeout --concurrency"),
        (
            ["pushattach", "verify", "-"],
            "--json -q --quiet --fast --fail-on --strict --accept-damaged --max-long-side --pixel-budget --decoded-budget --image-input-cap -h --help"
        ),
        (["pushattach", "bench", "--workload", "w1,d"], "w1,d1 w1,d2"),
        (["pushattach", "help", "b"], "bench"),
    ])
    func bashCompletes(words: [String], expected: String) throws {
        let script = Corpus.packageRoot.appendingPathComponent("completions/pushattach.bash").path
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let program = """
            source '\(script)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            _pushattach
            echo "${COMPREPLY[*]}"
            """
        let result = try ProcessRunner.runExecutable(URL(fileURLWithPath: "/bin/bash"), ["-c", program])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == expected + "\n", "\(words)")
    }

    @Test(arguments: [
        (["--generate-completion-script"], "pushattach: --generate-completion-script needs a shell: bash or zsh"),
        (
            ["--generate-completion-script", "fish"],
            "pushattach: no completion script for 'fish' (expected bash or zsh)"
        ),
        (["--generate-manpage", "x"], "pushattach: unexpected argument 'x' after '--generate-manpage'"),
    ])
    func badGeneratorArgumentsAreUsageErrors(arguments: [String], message: String) throws {
        let result = try ProcessRunner.run("pushattach", arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "\(message)\nhint: run 'pushattach --help'\n")
    }
}
