import Foundation
import MediaTypes
import PushAttach
import SystemSupport

/// `DIR/report.html`: one self-contained page showing every item of a container's manifest, for
/// people. A contact sheet: each item's thumbnail or player (or the reason it was refused, what
/// was sniffed and the first bytes that arrived), its status, source and output sizes, type
/// hint, transforms and warnings; filterable by status and by text, sorted by input order, size,
/// time or name, grouped by status or reason with counts, duplicates folded, a page at a time
/// (`ReportPage` says how).
///
///     let written = try ReportWriter.write(container: URL(fileURLWithPath: "out"))
///     written.url        // out/report.html: open it in a browser, from disk
///     written.statuses   // [.prepared: 9, .rejected: 3, .failed: 3]
///
/// The page loads nothing: its style and script are inline (allowed by hash in its
/// Content-Security-Policy, which refuses everything else), and pictures, sound and video are the
/// container's own `Thumbnails/`, `Images/`, `Audio/` and `Video/` files, by relative path, so the
/// page works offline and wherever the container is moved. The entries are in the page as one
/// JSON array (each entry as `manifest.json` has it, plus `reason_key`) and the script shows
/// `pageSize` cards at a time, so 10,000 items open as fast as 200. The state is in the link: `report.html#status=rejected&q=webp&page=2`.
///
/// `manifest.json` is read one entry at a time and the page written as it goes, atomically
/// (`AtomicFile`): memory stays flat however long the run, and a reader never sees half a page.
/// Text from outside is escaped for where it lands (`ReportHTML`).
package enum ReportWriter {
    package static let fileName = "report.html"
    /// Items per page unless the link asks for another count (`#per=50`, `#per=all`).
    package static let pageSize = 200

    /// What `write` wrote.
    package struct Written: Sendable, Hashable {
        /// `DIR/report.html`.
        package var url: URL
        /// Entries in the report (those of `manifest.json`).
        package var count: Int
        /// Entries per status.
        package var statuses: [ManifestEntry.Status: Int]
        /// The size of the page.
        package var bytes: Int
    }

    /// Reads `container/manifest.json` and writes `container/report.html` over any earlier one.
    ///
    /// - Returns: where the report is and what it holds.
    /// - Throws: `ReportError.noManifest` when there is no `manifest.json` (no run finished
    ///   there), `.unreadableManifest` when it is not one, `.container` when reading or writing
    ///   fails (the folder is not writable, the disk is full). A link at `manifest.json` is
    ///   refused, never followed; one at `report.html` is replaced.
    /// - Complexity: O(n) in the size of the manifest; memory O(1) in the number of entries.
    @discardableResult
    package static func write(container: URL) throws(ReportError) -> Written {
        let folder: DirectoryHandle
        do { folder = try DirectoryHandle(opening: container.path) } catch { throw .container(error) }
        return try write(in: folder, title: container.standardizedFileURL.lastPathComponent)
    }

    /// As `write(container:)`, in the container open as `folder` (a run's, which reaches
    /// nothing of it by path): the page is titled `title`, the container's name.
    static func write(in folder: DirectoryHandle, title name: String) throws(ReportError) -> Written {
        let opened: Int32?
        do { opened = try folder.openFileIfPresent(Manifest.fileName) } catch { throw .container(error) }
        let manifestPath = folder.path(of: Manifest.fileName)
        guard let manifest = opened else {
            let journal = (try? folder.status(ManifestJournal.fileName)) != nil
            throw .noManifest(path: manifestPath, journal: journal)
        }
        defer { try? SystemCall.close(manifest, path: manifestPath) }

        let file: AtomicFile
        do { file = try AtomicFile(in: folder, name: fileName) } catch { throw .container(error) }
        var out = Data()
        var bytes = 0
        func flush(_ force: Bool = false) throws(ReportError) {
            guard force || out.count >= 1 << 16 else { return }
            do { try file.append(out) } catch { throw .container(error) }
            bytes += out.count
            out.removeAll(keepingCapacity: true)
        }

        out.append(contentsOf: head(title: "PushAttach report: \(name)").utf8)
        out.append(contentsOf: "<body data-page-size=\"\(pageSize)\">\n".utf8)
        out.append(contentsOf: "<script type=\"application/json\" id=\"entries\">[".utf8)
        var count = 0
        var statuses: [ManifestEntry.Status: Int] = [:]
        let header = try ManifestStream.read(manifest, path: manifestPath) { (entry) throws(ReportError) in
            if count > 0 { out.append(0x2C) }
            out.append(0x0A)
            out.append(ReportHTML.scriptData(pageJSON(trusted(entry)).data()))
            count += 1
            statuses[entry.status, default: 0] += 1
            try flush()
        }
        out.append(contentsOf: "\n]</script>\n".utf8)
        out.append(contentsOf: page(container: name, created: header.created, count: count, statuses: statuses).utf8)
        try flush(true)
        do { try file.commit() } catch { throw .container(error) }
        return Written(
            url: URL(fileURLWithPath: folder.path(of: fileName)), count: count, statuses: statuses, bytes: bytes)
    }

    /// The entry as the page holds it: the manifest's keys, then `reason_key`, the group its
    /// reason is counted in (`PrepareSummary.reasonKey`, as the console's "top reasons" has it),
    /// null when prepared.
    static func pageJSON(_ entry: ManifestEntry) -> ManifestJSON {
        guard case .object(var members) = entry.json else { return entry.json }
        members.append(("reason_key", .optional(PrepareSummary.reasonKey(entry))))
        return .object(members)
    }

    /// `entry` with any `file` or `thumbnail` that is not a file of the container's folders
    /// (`ContainerPath`) taken out and said in a warning: the page links only the container's
    /// own files.
    static func trusted(_ entry: ManifestEntry) -> ManifestEntry {
        var entry = entry
        for keyPath in [\ManifestEntry.file, \ManifestEntry.thumbnail] {
            guard let path = entry[keyPath: keyPath], let problem = ContainerPath.problem(path) else { continue }
            entry[keyPath: keyPath] = nil
            entry.warnings.append("file path \(DisplayText.escaped(path)) not shown: it is not trusted (\(problem))")
        }
        return entry
    }

    private static func head(title: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="\(ReportPage.contentSecurityPolicy)">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="pushattach report">
        <title>\(ReportHTML.escaped(title))</title>
        <style>\(ReportPage.style)</style>
        </head>

        """
    }

    /// The order, grouping, folding and page-size controls (their values are the link's:
    /// `#sort=size&group=reason&fold=0&per=50`).
    private static let controls: String = {
        func select(_ id: String, _ label: String, _ options: [(value: String, text: String)]) -> String {
            let list = options.map { "<option value=\"\($0.value)\">\($0.text)</option>" }.joined()
            return "<select id=\"\(id)\" aria-label=\"\(label)\">\(list)</select>"
        }
        return [
            select(
                "sort", "Order",
                [("index", "input order"), ("size", "largest first"), ("time", "slowest first"), ("name", "name A-Z")]),
            select("group", "Groups", [("none", "no groups"), ("status", "group by status"), ("reason", "group by reason")]),
            "<label class=\"fold\"><input type=\"checkbox\" id=\"fold\" checked> fold duplicates</label>",
            select("per", "Items per page", ["50", "\(pageSize)", "1000", "all"].map { ($0, "\($0) per page") }),
        ].joined(separator: "\n")
    }()

    /// Everything after the entries: the header with the counts, the controls, the (empty)
    /// sheet the script fills, and the script.
    private static func page(container: String, created: String?, count: Int, statuses: [ManifestEntry.Status: Int])
        -> String
    {
        func number(_ status: ManifestEntry.Status) -> Int { statuses[status, default: 0] }
        let summary =
            "\(count) item\(count == 1 ? "" : "s"): \(number(.prepared)) prepared, \(number(.rejected)) rejected, "
            + "\(number(.failed)) failed" + (created.map { " \u{B7} manifest written \($0)" } ?? "")
        let chips =
            [("all", "All", count)]
            + [ManifestEntry.Status.prepared, .rejected, .failed].map {
                ($0.rawValue, $0.rawValue.prefix(1).uppercased() + $0.rawValue.dropFirst(), number($0))
            }
        let links = chips.map { status, label, n in
            let target = status == "all" ? "#" : "#status=\(status)"
            return "<a data-status=\"\(status)\" href=\"\(target)\">\(label) <span class=\"n\">\(n)</span></a>"
        }
        return """
            <header class="top">
            <h1>PushAttach report <span class="container">\(ReportHTML.escaped(container))</span></h1>
            <p class="summary">\(ReportHTML.escaped(summary))</p>
            <div class="controls">
            <nav class="filters" id="filters" aria-label="Status">\(links.joined())</nav>
            <input id="search" type="search" placeholder="Search names, reasons, warnings, type hints (press /)" aria-label="Search">
            \(controls)
            </div>
            <nav class="groups" id="groups" aria-label="Groups" hidden></nav>
            </header>
            <nav class="pager" id="pager-top" aria-label="Pages"></nav>
            <p class="empty" id="empty" hidden>No item matches.</p>
            <main class="sheet" id="sheet"></main>
            <nav class="pager" id="pager-bottom" aria-label="Pages"></nav>
            <noscript><p>The list needs JavaScript. The same entries are in manifest.json.</p></noscript>
            <script>\(ReportPage.script)</script>
            </body>
            </html>

            """
    }
}
