import Foundation
import PushAttach

/// `pushattach verify PATH...`: would iOS accept these files, and if not, why?
struct VerifyCommand: Command {
    static let name = "verify"
    static let abstract = "Check files against iOS's attachment rules: accepted, transcode or rejected, and why."

    /// The option table: parser, `--help`, man page and completions all read it.
    enum Options {
        static let json = OptionInfo.flag(
            "--json",
            "One JSON object per line, printed as each file is checked: path, verdict, action, output_format, ios {verdict, error_code}, format, uti, category, bytes, width, height (upright), frames, error_code, reason, warnings."
        )
        static let quiet = OptionInfo.flag(
            "--quiet", short: "-q", "Show only the files 'prepare' would change or refuse, and the summary.")
        static let fast = OptionInfo.flag("--fast", "Check headers only; skip the full decode of JPEG, PNG, WebP, GIF, HEIC and AVIF.")
        static let strict = OptionInfo.flag(
            "--strict", "Every codec warning and a malformed Exif block make a file corrupt.")
        static let acceptDamaged = OptionInfo.flag(
            "--accept-damaged",
            "Accept images whose data is damaged (cut short, \"Corrupt JPEG data\"), with a warning, as 'prepare --accept-damaged' uses what decodes. Without it they are rejected as corrupt (105)."
        )
        /// The limits `prepare` takes too, with the same help and defaults.
        static let pixelBudget = LimitOptions.pixelBudget
        static let decodedBudget = LimitOptions.decodedBudget

        static let all = [json, quiet, fast, strict, acceptDamaged, pixelBudget, decodedBudget, OptionInfo.help]

        /// Options of `prepare` a user may try here: a usage error saying so, not "unknown".
        static let elsewhere = [
            "--memory-budget":
                "--memory-budget is a prepare option (the memory budget of the whole run); verify's limit on one decoded image is --decoded-budget MB"
        ]
    }

    static var doc: CommandDoc {
        let rules = AppleRules.standard
        return CommandDoc(
            title: "pushattach verify",
            summary: "Would iOS accept these files as notification attachments, and what will 'prepare' do with them?",
            overview: [
                .paragraph(
                    "The type comes from the bytes, never the name. Each file gets the plan 'prepare' runs on it (the same one), as a verdict:"
                ),
                .definitions([
                    .init(term: "accepted", text: "Written unchanged: iOS takes it as it is."),
                    .init(
                        term: "transcode",
                        text:
                            "'prepare' changes it, and the action says how: convert (WebP, HEIC, HEIF, AVIF -> JPEG, or PNG with alpha), fit (a JPEG or PNG over 10 MB, the long side or the decoded budget, turned by Exif, or CMYK), reencode-animation (animated WebP, or a GIF over a limit -> animated GIF), first-frame (an animation over the frame cap), rename (a name whose extension does not say the type)."
                    ),
                    .init(
                        term: "rejected",
                        text:
                            "'prepare' refuses it, with the UNErrorCode (101 unrecognized type, 102 invalid file size, 105 corrupt) and a reason."
                    ),
                ]),
                .paragraph(
                    "With --json, 'ios' says what iOS would do with the file as it is: accepted, or rejected with its code (a WebP 101, a 12 MB JPEG 102, a JPEG named .png 101)."
                ),
                .paragraph(
                    "An image too large in pixels (over --pixel-budget, 'too large: WxH is N MP') is rejected 102 as well, by verify and prepare alike: iOS checks only the bytes when it attaches a file, but no extension can decode such an image to show it, and 102 is the code iOS has for a file too large."
                ),
                .paragraph(
                    "iOS picks the type from the file's extension, so a name that disagrees with the bytes is refused by iOS as it is, and 'prepare' writes the file under the right one. Caps: images \(megabytes(rules.imageByteCap)), audio \(megabytes(rules.audioByteCap)), movies \(megabytes(rules.movieByteCap)) (1 MB = 1,000,000 bytes). Images whose decoded size (width x height x 4) passes the extension's ~\(megabytes(rules.decodedBudget)) decoded budget get a warning."
                ),
            ],
            usage: "pushattach verify [options] PATH...",
            arguments: [
                ArgumentInfo(
                    name: "PATH",
                    help:
                        "Files or folders. Folders are walked recursively; hidden files, and files in them that are not media at all (a README), are skipped and counted (with --json, each a line with verdict \"skipped\" and action \"skip\"). A PATH that does not exist gets an error line; the others are still checked."
                )
            ],
            options: Options.all,
            notes: [
                .paragraph(
                    "The table (verdict, action, format, uti, size, dimensions, path) is printed once every file is checked, its columns as wide as their content; a reason or warning follows its file on an indented line. Then a summary: the counts and the most frequent reasons for rejection."
                )
            ],
            exitStatus:
                "0 every file accepted, 1 any file not accepted, a PATH not found, or no media file at all, 64 usage error.",
            examples: [
                "pushattach verify ~/Attachments",
                "pushattach verify -q ~/Attachments",
                "pushattach verify --json --fast cat.webp dog.jpg | jq .verdict",
            ])
    }

    var paths: [String]
    var json: Bool
    var quiet: Bool
    var verifier: AttachmentVerifier = {
        var verifier = AttachmentVerifier()
        verifier.policy.settingNames = FlagNames.commandLine
        return verifier
    }()

    static var spec: OptionSpec {
        var spec = OptionSpec(options: doc.options, positionals: doc.arguments.first?.name)
        spec.elsewhere = Options.elsewhere
        return spec
    }

    init(_ arguments: ParsedArguments) throws {
        let command = "pushattach verify"
        paths = arguments.positionals
        json = arguments.flag(Options.json)
        quiet = arguments.flag(Options.quiet)
        let limits = try LimitOptions.parse(arguments, command: command)
        if let bytes = limits.decodedBudget { verifier.policy.rules.decodedBudget = bytes }
        if let pixels = limits.pixelBudget { verifier.policy.pixelBudget = pixels }
        verifier.decode = !arguments.flag(Options.fast)
        verifier.policy.strict = arguments.flag(Options.strict)
        verifier.policy.acceptDamaged = arguments.flag(Options.acceptDamaged)
    }

    func validate() throws {
        guard !(verifier.policy.strict && verifier.policy.acceptDamaged) else {
            throw UsageError(
                command: "pushattach verify",
                message: "--strict refuses every codec warning and --accept-damaged accepts damaged images: choose one")
        }
        guard !paths.isEmpty else {
            throw UsageError(command: "pushattach verify", message: "no PATH given: name the files or folders to check")
        }
        // A PATH that does not exist is not a usage error: like `ls`, `run` reports it and goes on.
    }

    func run() async throws -> Int32 {
        let (files, missing) = Self.expand(paths)
        for path in missing { Console.error("pushattach verify: no such file or folder: \(path)") }
        var notMedia: [String] = []
        let verifier = verifier
        var table = VerifyTable()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let progress = !json && Console.stderrIsTerminal
        // Verify in parallel batches on all cores, report in input order.
        let batchSize = max(1, ProcessInfo.processInfo.activeProcessorCount) * 4
        for start in stride(from: 0, to: files.count, by: batchSize) {
            let batch = Array(files[start..<min(files.count, start + batchSize)])
            let reports = ParallelMap.map(batch) { file in
                verifier.verifyBlocking(fileAt: URL(fileURLWithPath: file.path), displayPath: file.path)
            }
            for (file, report) in zip(batch, reports) {
                if file.inFolder, Self.isNotMedia(report) {
                    notMedia.append(file.path)
                    if json { Console.json(try Self.skippedLine(report, encoder: encoder)) }
                    continue
                }
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
            Console.out(
                ([table.summary()] + Self.notChecked(missing: missing, notMedia: notMedia)).joined(separator: "\n"))
        }
        // Nothing checked (a folder of notes only) is not "every file accepted".
        return missing.isEmpty && table.total > 0 && table.total == table.accepted ? ExitStatus.success : ExitStatus.someFailed
    }

    /// A file found in a folder that is not media at all, as `--json` reports it: the keys of
    /// every line, with `verdict` "skipped" and `action` "skip" (prepare passes such a file over
    /// too); `ios` still says iOS would reject it.
    static func skippedLine(_ report: AttachmentReport, encoder: JSONEncoder) throws -> Data {
        var object = try JSONSerialization.jsonObject(with: try encoder.encode(report)) as? [String: Any] ?? [:]
        object["verdict"] = "skipped"
        object["action"] = "skip"
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// Each PATH's files, in order, marked when they were found by walking a folder; and the
    /// PATHs that do not exist.
    static func expand(_ paths: [String]) -> (files: [(path: String, inFolder: Bool)], missing: [String]) {
        var files: [(path: String, inFolder: Bool)] = []
        var missing: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                missing.append(path)
                continue
            }
            files += FileWalker.regularFiles(under: [path]).map { ($0, isDirectory.boolValue) }
        }
        return (files, missing)
    }

    /// Not media at all: bytes of no known format under a name that claims none. Named on the
    /// command line, such a file is rejected (101), as iOS would; found in a folder, it is
    /// someone's README, not an attachment, and is skipped.
    static func isNotMedia(_ report: AttachmentReport) -> Bool {
        report.format == .unknown && report.errorCode == .unrecognizedType
    }

    /// The summary's last lines: what was given or found but not checked.
    static func notChecked(missing: [String], notMedia: [String]) -> [String] {
        var lines: [String] = []
        if !missing.isEmpty {
            lines.append("not found: \(missing.joined(separator: ", "))")
        }
        if !notMedia.isEmpty {
            let names = notMedia.prefix(3).map { URL(fileURLWithPath: $0).lastPathComponent }
            let more = notMedia.count > 3 ? ", …" : ""
            let files = "\(notMedia.count) file\(notMedia.count == 1 ? "" : "s")"
            lines.append("not media, skipped: \(files) in folders (\(names.joined(separator: ", "))\(more))")
        }
        return lines
    }

    /// 10_000_000 as "10 MB", 24_500_000 as "24.5 MB".
    static func megabytes(_ bytes: Int) -> String {
        "\(OptionInfo.decimal((Double(bytes) / 100_000).rounded() / 10)) MB"
    }
}
