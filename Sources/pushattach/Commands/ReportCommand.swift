import Foundation
import PushAttach
import PushAttachBatch

/// `pushattach report DIR`: write DIR/report.html from DIR/manifest.json (`BatchReport`).
struct ReportCommand: Command {
    static let name = "report"
    static let abstract =
        "Write a container's report.html: every item's thumbnail, player or reason, to filter, sort and group in a browser."

    /// The option table: parser, `--help`, man page and completions all read it.
    enum Options {
        static let all = [OptionInfo.help]
    }

    static var doc: CommandDoc {
        CommandDoc(
            title: "pushattach report",
            summary: "Write DIR/report.html, a page showing every item of a container's manifest.",
            overview: [
                .paragraph(
                    "The report is a contact sheet: each item's thumbnail, or a player for audio and video, or the reason it was rejected or failed; its status, source and output sizes, type hint (uti), transforms and warnings; \(BatchReport.pageSize) cards to a page. A rejected item shows the format it was taken for (when one was recognised) and its first bytes, as text and hex (an HTML error page served as a photo is plain to see). Items naming the same URL are one card with a count."
                ),
                .paragraph(
                    "Filter by status and by text; order by input, size (largest first), time (slowest first) or name; group by status or by reason (the UNErrorCode and the reason's first clause, with a count per group). Each card's input URL shows whole on hover and has a copy button."
                ),
                .paragraph(
                    "It is one self-contained file: it loads nothing from the network and shows the container's own Thumbnails/, Images/, Audio/ and Video/ files by relative path, so it opens from disk, offline, wherever the container is moved. The view is in the link: report.html#status=rejected&q=webp&sort=size&group=reason&page=2 (per=N or per=all sets the page size, fold=0 shows duplicates as cards of their own)."
                )
            ],
            usage: "pushattach report DIR",
            arguments: [
                ArgumentInfo(
                    name: "DIR", help: "A container written by 'pushattach prepare' (it holds manifest.json).",
                    completion: .directory)
            ],
            options: Options.all,
            notes: [
                .paragraph(
                    "'pushattach prepare --report' writes the same page at the end of a run. report.html is written atomically, replacing an earlier one; nothing else in DIR changes."
                )
            ],
            exitStatus:
                "0 report written, 2 no manifest.json in DIR, an unreadable one, or report.html not writable, 64 usage error.",
            examples: [
                "pushattach report out && xdg-open out/report.html",
                "pushattach prepare urls.txt -o out --thumbnail 256 --report",
            ])
    }

    var container: URL

    init(_ arguments: ParsedArguments) throws {
        container = try FolderArgument.only(
            arguments, command: "pushattach report", missing: "name the container prepare wrote")
    }

    func validate() throws {
        try FolderArgument.requireFolder(container, command: "pushattach report")
    }

    func run() async throws -> Int32 {
        guard let written = Self.write(container, command: "pushattach report") else { return ExitStatus.fatal }
        Console.out(Self.summary(written))
        Console.out("report:    \(written.url.path)")
        return ExitStatus.success
    }

    /// Writes the report, or says on stderr why it could not and returns nil. (`prepare
    /// --report` has the run write it, into the container the run opened.)
    static func write(_ container: URL, command: String) -> BatchReport? {
        do {
            return try BatchReport.write(folder: container, settingNames: FlagNames.commandLine)
        } catch {
            Console.error("\(command): cannot write the report: \(error)")
            return nil
        }
    }

    /// "15 items: 9 prepared, 3 rejected, 3 failed", as `prepare` counts them.
    static func summary(_ written: BatchReport) -> String {
        let n = written.count
        return "\(n) item\(n == 1 ? "" : "s"): \(written.prepared) prepared, \(written.rejected) rejected, "
            + "\(written.failed) failed"
    }
}
