import Foundation
import PushAttach
import PushAttachBatch
import SystemSupport
import TestSupport
import Testing

/// `pushattach merge DIR` and `prepare --shard` as the command line shows them: usage errors,
/// refusals with their reasons, and a merge of shard journals.
@Suite("pushattach merge and prepare --shard", .tags(.slow), .notInFastTier)
struct MergeCLITests {
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("merge-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func usageErrors() throws {
        let none = try ProcessRunner.run("pushattach", ["merge"])
        #expect(none.status == 64)
        #expect(none.stderr.contains("no DIR given"))
        let missing = try ProcessRunner.run("pushattach", ["merge", "/nonexistent/folder/x"])
        #expect(missing.status == 64 && missing.stderr.contains("no such folder"))
        let badShard = try ProcessRunner.run("pushattach", ["prepare", "-", "-o", "/tmp/x", "--shard", "4/4"])
        #expect(badShard.status == 64)
        #expect(badShard.stderr.contains("--shard 4/4: shard index 4 is out of range for 4 shards"), "\(badShard.stderr)")
    }

    /// `--shard auto` with no engine's variables says which it looked for and what to pass.
    @Test func autoWithoutAnEngineSaysWhatItLookedFor() throws {
        let environment = ProcessInfo.processInfo.environment.filter {
            !["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX", "CLOUD_RUN_TASK_INDEX"]
                .contains($0.key)
        }
        let process = try ProcessRunner.runExecutable(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["-i"] + environment.filter { $0.key == "PATH" }.map { "\($0.key)=\($0.value)" }
                + [ProcessRunner.product("pushattach").path, "prepare", "-", "-o", "/tmp/x", "--shard", "auto"])
        #expect(process.status == 64)
        #expect(process.stderr.contains("looked for SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX"), "\(process.stderr)")
        let kubernetes = try ProcessRunner.run(
            "pushattach", ["prepare", "-", "-o", "/tmp/x", "--shard", "auto"], environment: ["JOB_COMPLETION_INDEX": "2"])
        #expect(kubernetes.status == 64)
        #expect(kubernetes.stderr.contains("found JOB_COMPLETION_INDEX=2 but no shard count"), "\(kubernetes.stderr)")
        #expect(kubernetes.stderr.contains("auto/N"))
    }

    @Test func mergesCompleteShardsAndRefusesTheRest() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let empty = try ProcessRunner.run("pushattach", ["merge", dir.path])
        #expect(empty.status == 2 && empty.stderr.contains("not a container a prepare run wrote into"), "\(empty.stderr)")

        for k in 0..<2 {
            let shard = try Shard(index: k, count: 2)
            let journal = try ManifestJournal(directory: dir, name: shard.journalName)
            for index in 0..<10 where Shard.assignment(of: "https://x.test/\(index)", count: 2) == k {
                try journal.append(ManifestEntry(index: index, input: "https://x.test/\(index)", line: index + 1, status: .failed, reason: "HTTP 404"))
            }
            try journal.close()
        }
        try Data().write(to: dir.appendingPathComponent("manifest.0-of-2.done"))
        let incomplete = try ProcessRunner.run("pushattach", ["merge", dir.path])
        #expect(incomplete.status == 2)
        #expect(incomplete.stderr.contains("shard 1 of 2 is not complete"), "\(incomplete.stderr)")
        #expect(incomplete.stderr.contains("merge with --partial"), "\(incomplete.stderr)")

        let partial = try ProcessRunner.run("pushattach", ["merge", dir.path, "--partial"])
        #expect(partial.status == 0, "\(partial.stderr)")
        #expect(partial.stdout.hasPrefix("10 items: 0 prepared, 0 rejected, 10 failed"), "\(partial.stdout)")

        let journal = try ManifestJournal(directory: dir, name: "manifest.0-of-3.jsonl")
        try journal.close()
        let mixed = try ProcessRunner.run("pushattach", ["merge", dir.path, "--partial"])
        #expect(mixed.status == 2)
        #expect(mixed.stderr.contains("different shard counts"), "\(mixed.stderr)")
    }
}

extension MergeCLITests {
    /// merge's options are in the man page and both completion scripts, as the others' are.
    @Test func mergeIsInTheManPageAndTheScripts() throws {
        let man = try ProcessRunner.run("pushattach", ["--generate-manpage"]).stdout
        let bash = try ProcessRunner.run("pushattach", ["--generate-completion-script", "bash"]).stdout
        let zsh = try ProcessRunner.run("pushattach", ["--generate-completion-script", "zsh"]).stdout
        #expect(man.contains("\\fB\\-\\-partial\\fR") && man.contains("\\fB\\-\\-shard\\fR"))
        #expect(bash.contains("--partial") && bash.contains(" --shard"))
        #expect(zsh.contains("--partial") && zsh.contains("--shard"))
    }
}
