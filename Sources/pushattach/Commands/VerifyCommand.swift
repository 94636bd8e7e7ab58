import Foundation
import MediaTypes
import Verification

/// `pushattach verify PATH...`: would iOS accept these files, and if not, why?
struct VerifyCommand: Command {
    static let name = "verify"
    static let abstract = "Check files against iOS's attachment rules: accepted, transcode or rejected, and why."
    static let help = """
        OVERVIEW: Would iOS accept these files as notification attachments, and if not, why?

        The type comes from the bytes, never the name. Each file gets a verdict:
          accepted   iOS takes it as it is.
          transcode  iOS refuses the format but 'prepare' converts it (WebP -> JPEG, or PNG with alpha).
          rejected   iOS would refuse it, with the UNErrorCode it would give (101 unrecognized type,
                     102 invalid file size, 105 corrupt) and a reason.
        iOS picks the type from the file's extension, so a name that disagrees with the bytes is
        rejected (rename it). Caps: images 10 MB, audio 5 MB, movies 50 MB (1 MB = 1,000,000 bytes).
        Images whose decoded size (width x height x 4) passes the extension's ~24 MB memory budget
        get a warning.

        USAGE: pushattach verify [options] PATH...

        ARGUMENTS:
          PATH                   Files or folders (folders are walked recursively; hidden files skipped).

        OPTIONS:
          --json                 One JSON object per line: path, verdict, format, uti, category, bytes,
                                 width, height, frames, error_code, reason, warnings.
          --fast                 Check headers only; skip the full decode of JPEG, PNG and WebP.
          --strict               Every codec warning and a malformed Exif block make a file corrupt.
          --accept-damaged       Accept images whose data is damaged (cut short, "Corrupt JPEG data"),
                                 with a warning, as 'prepare --accept-damaged' uses what decodes.
                                 Without it they are rejected as corrupt (105).
          --pixel-budget MP      Refuse to decode images over this many megapixels (default 50).
          --memory-budget MB     Warn when width x height x 4 passes this (default 24, in 10^6 bytes).
          -h, --help             Show this help.

        EXIT STATUS: 0 every file accepted, 1 any file not accepted, 64 usage error.

        EXAMPLES:
          pushattach verify ~/Attachments
          pushattach verify --json --fast cat.webp dog.jpg | jq .verdict
        """
    static let spec = OptionSpec(
        flags: ["--json", "--fast", "--strict", "--accept-damaged"], values: ["--pixel-budget", "--memory-budget"], positionals: "PATH")

    var paths: [String]
    var json: Bool
    var options: VerifyOptions

    init(_ arguments: ParsedArguments) throws {
        let command = "pushattach verify"
        paths = arguments.positionals
        json = arguments.flag("--json")
        var rules = AppleRules.standard
        let memoryMB = try arguments.double("--memory-budget", default: 24, in: 1...100_000, command: command)
        rules.memoryBudget = Int(memoryMB * 1_000_000)
        let pixelMP = try arguments.double("--pixel-budget", default: 50, in: 0.001...100_000, command: command)
        options = VerifyOptions(
            decode: !arguments.flag("--fast"), strict: arguments.flag("--strict"),
            pixelBudget: Int(pixelMP * 1_000_000), rules: rules, acceptDamaged: arguments.flag("--accept-damaged"))
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
        var counts: [String: Int] = [:]
        var reasons: [String: Int] = [:]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Verify in parallel batches on all cores, print in input order.
        let batchSize = max(1, ProcessInfo.processInfo.activeProcessorCount) * 4
        for start in stride(from: 0, to: files.count, by: batchSize) {
            let batch = Array(files[start..<min(files.count, start + batchSize)])
            let reports = ParallelMap.map(batch) { file in
                verifier.verify(fileAt: URL(fileURLWithPath: file), displayPath: file)
            }
            for report in reports {
                counts[report.verdict, default: 0] += 1
                if let reason = report.reason, report.verdict == "rejected" {
                    reasons[ReasonSummary.key(reason), default: 0] += 1
                }
                if json {
                    Console.json(try encoder.encode(report))
                } else {
                    Console.out(HumanReport.line(report))
                }
            }
        }
        if !json {
            Console.out(HumanReport.summary(total: files.count, counts: counts, reasons: reasons))
        }
        return files.count == (counts["accepted"] ?? 0) ? ExitStatus.success : ExitStatus.someFailed
    }
}

/// The human-readable form of verify's output. Paths, reasons and warnings can hold text from
/// outside (a file's name, bytes quoted from it): they are escaped (`DisplayText`).
enum HumanReport {
    static func line(_ r: FileReport) -> String {
        let size = r.width.flatMap { w in r.height.map { h in "\(w)x\(h)" } } ?? "-"
        let frames = (r.frames ?? 1) > 1 ? " \(r.frames!) frames" : ""
        var text = "\(r.verdict.padding(toLength: 9, withPad: " ", startingAt: 0)) \(r.format.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) "
            + "\((r.uti ?? "-").padding(toLength: 28, withPad: " ", startingAt: 0)) \(formatBytes(r.bytes).padding(toLength: 10, withPad: " ", startingAt: 0)) "
            + "\((size + frames).padding(toLength: 12, withPad: " ", startingAt: 0)) \(DisplayText.escaped(r.path))"
        if let reason = r.reason {
            text += "\n          \(r.errorCode.map { "[\($0)] " } ?? "")\(DisplayText.escaped(reason))"
        }
        for warning in r.warnings { text += "\n          warning: \(DisplayText.escaped(warning))" }
        return text
    }

    static func summary(total: Int, counts: [String: Int], reasons: [String: Int]) -> String {
        var text = "\n\(total) file\(total == 1 ? "" : "s"): \(counts["accepted"] ?? 0) accepted, \(counts["transcode"] ?? 0) transcode, \(counts["rejected"] ?? 0) rejected"
        let top = reasons.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(5)
        if !top.isEmpty {
            text += "\ntop reasons for rejection:"
            for (reason, n) in top { text += "\n  \(n) x \(DisplayText.escaped(reason))" }
        }
        return text
    }

    static func formatBytes(_ n: Int) -> String {
        if n >= 1_000_000 { return String(format: "%.1f MB", Double(n) / 1e6) }
        if n >= 1_000 { return String(format: "%.1f kB", Double(n) / 1e3) }
        return "\(n) B"
    }
}

/// Groups reasons for the summary by their first clause, so per-file details don't split them.
enum ReasonSummary {
    static func key(_ reason: String) -> String {
        let cut = reason.firstIndex(where: { $0 == ":" || $0 == ";" }) ?? reason.endIndex
        return String(reason[..<cut])
    }
}
