import Foundation
import PushAttach
import PushAttachBatch

/// `pushattach verify PATH...`: would iOS accept these files, and if not, why?
struct VerifyCommand: Command {
    static let name = "verify"
    static let abstract = "Check files against iOS's attachment rules: accepted, transcode or rejected, and why."

    /// The option table: parser, `--help`, man page and completions all read it.
    enum Options {
        static let json = OptionInfo.flag(
            "--json",
            "One JSON object per line, printed as each file is checked: path, verdict, action, output_format, ios {verdict, error_code}, format, uti, category, bytes, width, height (upright), frames, error_code, refusal, reason, warnings."
        )
        static let failOn = OptionInfo.value(
            "--fail-on", "WHAT",
            "What makes the exit status 1: rejected (a file prepare refuses or cannot read: it would not reach a device), transcode (also a file prepare changes), ios (also a file iOS would refuse as it is, before prepare).",
            default: FailOn.rejected.rawValue, completion: .choices(FailOn.allCases.map(\.rawValue)))
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
        static let maxLongSide = LimitOptions.maxLongSide
        static let pixelBudget = LimitOptions.pixelBudget
        static let decodedBudget = LimitOptions.decodedBudget
        static let imageInputCap = LimitOptions.imageInputCap

        static let all = [
            json, quiet, fast, failOn, strict, acceptDamaged, maxLongSide, pixelBudget, decodedBudget, imageInputCap,
            OptionInfo.help,
        ]

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
                    "Beside it, the 'ios' column (with --json, 'ios') says what iOS would do with the file as it is, before prepare: accepted, or rejected with its code (a WebP 101, a 12 MB JPEG 102, a JPEG named .png 101). A 4 MB camera JPEG is 'transcode' (prepare fits it to the long side) and 'accepted' by iOS as it is: it reaches a device either way."
                ),
                .paragraph(
                    "Bytes that are no media at all (an HTML error page, text, JSON, a PDF, an empty file) are rejected 101 'not media', whatever their name says; a file of a format we know whose header or data is damaged is rejected 105."
                ),
                .paragraph(
                    "An image too large in pixels (over --pixel-budget, 'too large: WxH is N MP') is rejected 102 as well, by verify and prepare alike: iOS checks only the bytes when it attaches a file, but no extension can decode such an image to show it, and 102 is the code iOS has for a file too large."
                ),
                .paragraph(
                    "iOS picks the type from the file's extension, so a name that disagrees with the bytes is refused by iOS as it is, and 'prepare' writes the file under the right one. Caps: images \(megabytes(rules.imageByteCap)), audio \(megabytes(rules.audioByteCap)), movies \(megabytes(rules.movieByteCap)) (1 MB = 1,000,000 bytes). Images over the long side or whose decoded size (width x height x 4) passes the extension's ~\(megabytes(rules.decodedBudget)) decoded budget are fitted."
                ),
            ],
            usage: "pushattach verify [options] PATH...",
            arguments: [
                ArgumentInfo(
                    name: "PATH",
                    help:
                        "Files or folders. Folders are walked recursively; hidden files are passed over, and files whose bytes are no media and whose name has no media extension (a README, a list) are skipped and listed with what they look like (with --json, each a line with verdict \"skipped\" and action \"skip\"). A file named on the command line is always checked. A PATH that does not exist gets an error line; the others are still checked."
                )
            ],
            options: Options.all,
            notes: [
                .paragraph(
                    "The table (verdict, action, ios, format, uti, size, dimensions, path) is printed once every file is checked, its columns as wide as their content; a reason or warning follows its file on an indented line. Then a summary: the counts, what iOS would do with the files as they are, and the most frequent reasons for rejection."
                ),
                .paragraph(
                    "As a gate in CI: by default only what would not reach a device fails (--fail-on rejected); --fail-on transcode also fails files prepare would change (send them prepared, or fix them at the source); --fail-on ios also fails files iOS would refuse as they are (for files sent without prepare)."
                ),
            ],
            exitStatus:
                "0 no file fails the gate (by default: none rejected or unreadable), 1 a file fails it (see --fail-on), a PATH was not found, or no media file was found at all, 64 usage error.",
            examples: [
                "pushattach verify ~/Attachments",
                "pushattach verify -q ~/Attachments",
                "pushattach verify --fail-on transcode campaign/   # CI: every file must go out as it is",
                "pushattach verify --fail-on ios uploads/          # files sent without prepare",
                "pushattach verify --json --fast cat.webp dog.jpg | jq .verdict",
            ])
    }

    /// What fails the exit status.
    enum FailOn: String, CaseIterable {
        case rejected, transcode, ios

        /// True when `report` fails this gate.
        func fails(_ report: AttachmentReport) -> Bool {
            if report.verdict == .rejected || report.verdict == .failed { return true }
            switch self {
            case .rejected: return false
            case .transcode: return report.verdict == .transcode
            case .ios: return report.verdict == .transcode || report.iosErrorCode != nil
            }
        }
    }

    var paths: [String]
    var json: Bool
    var quiet: Bool
    var failOn = FailOn.rejected
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
        if let text = arguments.value(Options.failOn) {
            guard let gate = FailOn(rawValue: text) else {
                throw UsageError(
                    command: command,
                    message: "--fail-on \(text): expected \(FailOn.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            failOn = gate
        }
        try LimitOptions.parse(arguments, command: command).apply(to: &verifier.policy)
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
        var skipped: [(path: String, looksLike: ContentGuess)] = []
        let verifier = verifier
        var table = VerifyTable()
        var failed = false
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let progress = !json && Console.stderrIsTerminal
        // Verify in parallel batches on all cores, report in input order.
        let batchSize = max(1, ProcessInfo.processInfo.activeProcessorCount) * 4
        for start in stride(from: 0, to: files.count, by: batchSize) {
            let batch = Array(files[start..<min(files.count, start + batchSize)])
            let reports = ParallelMap.map(batch) { file -> Checked in
                let url = URL(fileURLWithPath: file.path)
                // A folder's files that are no media (a README, a list) are passed over, named
                // with what they look like; a file named on the command line is always judged.
                if file.inFolder, case .notMedia(let guess) = MediaFolder.kind(ofFileAt: url) { return .skipped(guess) }
                return .report(verifier.verifyBlocking(fileAt: url, displayPath: file.path))
            }
            for (file, checked) in zip(batch, reports) {
                let report: AttachmentReport
                switch checked {
                case .skipped(let guess):
                    skipped.append((file.path, guess))
                    if json { Console.json(try Self.skippedLine(path: file.path, looksLike: guess)) }
                    continue
                case .report(let made): report = made
                }
                table.count(report)
                if failOn.fails(report) { failed = true }
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
                ([table.summary()] + Self.notChecked(missing: missing, skipped: skipped)).joined(separator: "\n"))
        }
        // Nothing checked (a folder of notes only) is not "every file accepted".
        return missing.isEmpty && table.total > 0 && !failed ? ExitStatus.success : ExitStatus.someFailed
    }

    /// A file of the PATHs: judged, or passed over as no media.
    enum Checked: Sendable {
        case report(AttachmentReport)
        case skipped(ContentGuess)
    }

    /// A file found in a folder that is not media at all, as `--json` reports it: the keys of
    /// every line, with `verdict` "skipped", `action` "skip", the reason saying what it looks
    /// like, and no more of it read than its first bytes.
    static func skippedLine(path: String, looksLike: ContentGuess) throws -> Data {
        let object: [String: Any] = [
            "path": path, "verdict": "skipped", "action": "skip", "output_format": NSNull(),
            "ios": ["verdict": "rejected", "error_code": NSNull()] as [String: Any], "format": "unknown", "uti": NSNull(),
            "category": NSNull(), "bytes": NSNull(), "width": NSNull(), "height": NSNull(), "frames": NSNull(),
            "error_code": NSNull(), "refusal": NSNull(), "reason": "skipped: \(looksLike.phrase), not media",
            "warnings": [String](),
        ]
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

    /// The summary's last lines: what was given or found but not checked.
    static func notChecked(missing: [String], skipped: [(path: String, looksLike: ContentGuess)]) -> [String] {
        var lines: [String] = []
        if !missing.isEmpty {
            lines.append("not found: \(missing.joined(separator: ", "))")
        }
        if !skipped.isEmpty {
            let shown = skipped.prefix(5).map { "\(DisplayText.escaped(URL(fileURLWithPath: $0.path).lastPathComponent)) (\($0.looksLike.phrase))" }
            let more = skipped.count > 5 ? ", …" : ""
            let files = "\(skipped.count) file\(skipped.count == 1 ? "" : "s")"
            lines.append("skipped, not media: \(files) in folders: \(shown.joined(separator: ", "))\(more)")
        }
        return lines
    }

    /// 10_000_000 as "10 MB", 24_500_000 as "24.5 MB".
    static func megabytes(_ bytes: Int) -> String {
        "\(OptionInfo.decimal((Double(bytes) / 100_000).rounded() / 10)) MB"
    }
}
