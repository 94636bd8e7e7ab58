import Foundation
import MediaTypes
import Verification

/// `pushattach verify PATH...`: would iOS accept these files, and if not, why?
struct VerifyCommand: Command {
    static let name = "verify"
    static let abstract = "Check files against iOS's attachment rules: accepted, transcode or rejected, and why."

    /// The option table: parser, `--help`, man page and completions all read it.
    enum Options {
        static let json = OptionInfo.flag(
            "--json",
            "One JSON object per line, printed as each file is checked: path, verdict, format, uti, category, bytes, width, height, frames, error_code, reason, warnings."
        )
        static let quiet = OptionInfo.flag(
            "--quiet", short: "-q", "Show only the files iOS would not accept as they are, and the summary.")
        static let fast = OptionInfo.flag("--fast", "Check headers only; skip the full decode of JPEG, PNG and WebP.")
        static let strict = OptionInfo.flag(
            "--strict", "Every codec warning and a malformed Exif block make a file corrupt.")
        static let acceptDamaged = OptionInfo.flag(
            "--accept-damaged",
            "Accept images whose data is damaged (cut short, \"Corrupt JPEG data\"), with a warning, as 'prepare --accept-damaged' uses what decodes. Without it they are rejected as corrupt (105)."
        )
        static let pixelBudget = OptionInfo.number(
            "--pixel-budget", "MP", "Refuse to decode images over this many megapixels.",
            default: Double(VerifyOptions().pixelBudget) / 1e6, in: 0.001...100_000)
        static let memoryBudget = OptionInfo.number(
            "--memory-budget", "MB", "Warn when width x height x 4 passes this, in 10^6 bytes.",
            default: Double(AppleRules.standard.memoryBudget) / 1e6, in: 1...100_000)

        static let all = [json, quiet, fast, strict, acceptDamaged, pixelBudget, memoryBudget, OptionInfo.help]
    }

    static var doc: CommandDoc {
        let rules = AppleRules.standard
        return CommandDoc(
            title: "pushattach verify",
            summary: "Would iOS accept these files as notification attachments, and if not, why?",
            overview: [
                .paragraph("The type comes from the bytes, never the name. Each file gets a verdict:"),
                .definitions([
                    .init(term: "accepted", text: "iOS takes it as it is."),
                    .init(
                        term: "transcode",
                        text: "iOS refuses the format but 'prepare' converts it (WebP -> JPEG, or PNG with alpha)."),
                    .init(
                        term: "rejected",
                        text:
                            "iOS would refuse it, with the UNErrorCode it would give (101 unrecognized type, 102 invalid file size, 105 corrupt) and a reason."
                    ),
                ]),
                .paragraph(
                    "iOS picks the type from the file's extension, so a name that disagrees with the bytes is rejected (rename it). Caps: images \(megabytes(rules.imageByteCap)), audio \(megabytes(rules.audioByteCap)), movies \(megabytes(rules.movieByteCap)) (1 MB = 1,000,000 bytes). Images whose decoded size (width x height x 4) passes the extension's ~\(megabytes(rules.memoryBudget)) memory budget get a warning."
                ),
            ],
            usage: "pushattach verify [options] PATH...",
            arguments: [
                ArgumentInfo(
                    name: "PATH", help: "Files or folders (folders are walked recursively; hidden files skipped).")
            ],
            options: Options.all,
            notes: [
                .paragraph(
                    "The table (verdict, format, uti, size, dimensions, path) is printed once every file is checked, its columns as wide as their content; a reason or warning follows its file on an indented line. Then a summary: the counts and the most frequent reasons for rejection."
                )
            ],
            exitStatus: "0 every file accepted, 1 any file not accepted, 64 usage error.",
            examples: [
                "pushattach verify ~/Attachments",
                "pushattach verify -q ~/Attachments",
                "pushattach verify --json --fast cat.webp dog.jpg | jq .verdict",
            ])
    }

    var paths: [String]
    var json: Bool
    var quiet: Bool
    var options = VerifyOptions()

    init(_ arguments: ParsedArguments) throws {
        let command = "pushattach verify"
        paths = arguments.positionals
        json = arguments.flag(Options.json)
        quiet = arguments.flag(Options.quiet)
        if let megabytes = try arguments.double(Options.memoryBudget, command: command) {
            options.rules.memoryBudget = Int(megabytes * 1_000_000)
        }
        if let megapixels = try arguments.double(Options.pixelBudget, command: command) {
            options.pixelBudget = Int(megapixels * 1_000_000)
        }
        options.decode = !arguments.flag(Options.fast)
        options.strict = arguments.flag(Options.strict)
        options.acceptDamaged = arguments.flag(Options.acceptDamaged)
    }

    func validate() throws {
        guard !(options.strict && options.acceptDamaged) else {
            throw UsageError(
                command: "pushattach verify",
                message: "--strict refuses every codec warning and --accept-damaged accepts damaged images: choose one")
        }
        guard !paths.isEmpty else {
            throw UsageError(command: "pushattach verify", message: "no PATH given: name the files or folders to check")
        }
        for path in paths where !FileManager.default.fileExists(atPath: path) {
            throw UsageError(command: "pushattach verify", message: "no such file or folder: \(path)")
        }
    }

    func run() async throws -> Int32 {
        let files = FileWalker.regularFiles(under: paths)
        let verifier = Verifier(options: options)
        var table = VerifyTable()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let progress = !json && Console.stderrIsTerminal
        // Verify in parallel batches on all cores, report in input order.
        let batchSize = max(1, ProcessInfo.processInfo.activeProcessorCount) * 4
        for start in stride(from: 0, to: files.count, by: batchSize) {
            let batch = Array(files[start..<min(files.count, start + batchSize)])
            let reports = ParallelMap.map(batch) { file in
                verifier.verify(fileAt: URL(fileURLWithPath: file), displayPath: file)
            }
            for report in reports {
                table.count(report)
                guard !(quiet && report.isAccepted) else { continue }
                if json {
                    Console.json(try encoder.encode(report))
                } else {
                    table.rows.append(report)
                }
            }
            if progress { Console.status("checked \(start + batch.count)/\(files.count) files") }
        }
        if progress { Console.status(nil) }
        if !json {
            let text = table.rendered()
            if !text.isEmpty { Console.out(text + "\n") }
            Console.out(table.summary())
        }
        return table.total == table.accepted ? ExitStatus.success : ExitStatus.someFailed
    }

    /// 10_000_000 as "10 MB", 24_500_000 as "24.5 MB".
    static func megabytes(_ bytes: Int) -> String {
        "\(OptionInfo.decimal((Double(bytes) / 100_000).rounded() / 10)) MB"
    }
}
