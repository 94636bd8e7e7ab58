import Foundation
import PushAttach
import PushAttachBatch

/// `pushattach merge DIR`: write DIR/manifest.json from the journals of a container, sharded or
/// not (`Manifest.mergeContainer`).
struct MergeCommand: Command {
    static let name = "merge"
    static let abstract = "Write a container's manifest.json from its journals (the shards' of a sharded run)."

    /// The option table: parser, `--help`, man page and completions all read it.
    enum Options {
        static let partial = OptionInfo.flag(
            "--partial",
            "Merge what the journals hold even when a shard has no journal or has not finished (its items are missing from manifest.json).")
        static let all = [partial, OptionInfo.help]
    }

    static var doc: CommandDoc {
        CommandDoc(
            title: "pushattach merge",
            summary: "Write DIR/manifest.json, in input order, from DIR/manifest.jsonl and the shards' DIR/manifest.K-of-N.jsonl.",
            overview: [
                .paragraph(
                    "'prepare --shard K/N' runs write one journal per shard into a shared DIR, and the last shard to finish writes manifest.json itself. merge does the same by hand: after a shard was rerun, or to see a partial result. The journals are read line by line and merged by input position through sorted runs on disk (temporaries in DIR, removed as they are made), so memory stays flat however many items there are; the last line of each item wins. manifest.json follows the same schema as an unsharded run's, entry for entry."
                )
            ],
            usage: "pushattach merge DIR [--partial]",
            arguments: [
                ArgumentInfo(
                    name: "DIR", help: "A container written by 'pushattach prepare' (with or without --shard).",
                    completion: .directory)
            ],
            options: Options.all,
            notes: [
                .paragraph(
                    "merge refuses journals of two shard counts in one DIR (manifest.0-of-3.jsonl beside manifest.0-of-4.jsonl), and, without --partial, a shard whose journal or manifest.K-of-N.done is missing (still running, or killed: rerun it with --shard K/N --resume). It takes DIR's lock, so it is refused while a prepare run or a shard is writing."
                )
            ],
            exitStatus:
                "0 manifest.json written, 2 journals that do not fit together, an incomplete shard, DIR in use or not writable, 64 usage error.",
            examples: [
                "pushattach merge out",
                "pushattach merge out --partial && pushattach report out",
            ])
    }

    var container: URL
    var partial: Bool

    init(_ arguments: ParsedArguments) throws {
        container = try FolderArgument.only(
            arguments, command: "pushattach merge", missing: "name the container the shards wrote")
        partial = arguments.flag(Options.partial)
    }

    func validate() throws {
        try FolderArgument.requireFolder(container, command: "pushattach merge")
    }

    func run() async throws -> Int32 {
        let merged: AttachmentMerge
        do {
            merged = try AttachmentMerge.run(folder: container, partial: partial, settingNames: FlagNames.commandLine)
        } catch {
            Console.error("pushattach merge: \(error.description)")
            return ExitStatus.fatal
        }
        for warning in merged.warnings { Console.error("warning: \(warning)") }
        let n = merged.count
        Console.out(
            "\(n) item\(n == 1 ? "" : "s"): \(merged.prepared) prepared, \(merged.rejected) rejected, "
                + "\(merged.failed) failed")
        Console.out("manifest:  \(merged.manifest.path)")
        return ExitStatus.success
    }
}
