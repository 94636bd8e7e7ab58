import Foundation
import ImageCodecs
import PushAttach
import PushAttachBatch
import SystemSupport
import TestSupport
import Testing

/// `pushattach report DIR` and `prepare --report`, checked in a real browser: headless Chromium
/// loads the report from disk, runs its script, and the tests read the DOM it dumps (the cards,
/// the filter's state on `<body>`) and look at a screenshot. Serialized: the 10,000-item test
/// prints how long the page takes to render, and parallel browsers would skew it.
@Suite("pushattach report", .serialized, .tags(.slow), .notInFastTier)
struct ReportCLITests {
    // MARK: - Escaping

    /// Strings a server or a payload could choose, for every place the report shows text.
    static let hostile = [
        "<script>document.body.setAttribute('data-pwned','script')</script>",
        "<img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">",
        "\"quoted\" and 'single' & ampersand",
        "</style><style>body{display:none}</style>",
        "</script><script>document.body.setAttribute('data-pwned','end')</script><!--",
        "line\u{2028}separator\u{2029}paragraph",
        "photo\u{202E}gpj.exe",
        "tab\tnew\nline\u{1B}[2J",
    ]

    @Test func htmlEscapingLeavesNoMarkup() {
        #expect(
            ReportHTML.escaped("<script>alert('x')</script>") == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;")
        #expect(ReportHTML.escaped("a \"b\" & c") == "a &quot;b&quot; &amp; c")
        #expect(ReportHTML.escaped("</style>") == "&lt;/style&gt;")
        #expect(ReportHTML.escaped("a\u{2028}b") == #"a\u{2028}b"#)
        #expect(ReportHTML.escaped("photo\u{202E}gpj.exe") == #"photo\u{202E}gpj.exe"#)
        #expect(ReportHTML.escaped("Zürich/写真.jpg") == "Zürich/写真.jpg")
        for text in Self.hostile {
            let escaped = ReportHTML.escaped(text)
            #expect(!escaped.contains(where: { "<>\"'".contains($0) }), "\(escaped)")
            #expect(!escaped.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" || $0 == "\u{202E}" })
        }
    }

    /// In the JSON block, no string can close the `<script>` or open a comment, and the JSON still
    /// decodes to the same strings.
    @Test func scriptDataCannotEndItsBlock() throws {
        for text in Self.hostile {
            let entry = ManifestEntry(input: text, line: 1, status: .failed, reason: text, warnings: [text])
            let data = ReportHTML.scriptData(entry.jsonLine())
            let json = String(decoding: data, as: UTF8.self)
            #expect(!json.contains("<") && !json.contains(">") && !json.contains("&"), "\(json)")
            #expect(!json.unicodeScalars.contains { $0 == "\u{2028}" || $0 == "\u{2029}" })
            let decoded = try JSONDecoder().decode(ManifestEntry.self, from: data)
            #expect(decoded.input == text && decoded.reason == text && decoded.warnings == [text])
        }
    }

    // MARK: - The demo list, in a browser

    /// demo/attachments.txt, as `make demo` runs it (an in-process server over TestImages/ instead
    /// of Python's), with `--report`: every item is a card, the filters work, and the first screen
    /// is a real picture.
    @Test(.enabled(if: HeadlessChromium.shouldRun, HeadlessChromium.skipReason))
    func demoReportInChromium() throws {
        let browser = try HeadlessChromium()
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let container = try Self.prepareDemo(in: dir)
        let report = container.appendingPathComponent("report.html")
        let entries = try Self.entries(of: container)
        #expect(entries.count == 16)
        let statuses = entries.map { $0["status"] as? String ?? "?" }
        #expect(Set(statuses) == ["prepared", "rejected", "failed"], "\(statuses)")

        let all = try browser.dumpDOM(report, hash: "fold=0")
        #expect(all.body["data-total"] == "16", "\(all.body)")
        #expect(Self.cards(all.html).map(\.index) == Array(0..<16))
        #expect(Self.cards(all.html).map(\.status) == statuses)
        // Pictures come from the container, by relative path; nothing else is loaded.
        let sources = all.html.matches(of: /<img[^>]*src="([^"]*)"/).map { String($0.1) }
        #expect(sources.count == statuses.filter { $0 == "prepared" }.count - 1, "\(sources)")  // the WAV has none
        #expect(sources.allSatisfy { $0.hasPrefix("Thumbnails/") || $0.hasPrefix("Images/") }, "\(sources)")
        #expect(!all.html.contains("<link") && !all.html.contains("src=\"http"))
        let links = all.html.matches(of: /<a[^>]* href="([^"]*)"/).map { String($0.1) }
        #expect(links.contains { $0.hasPrefix("Images/") } && links.contains { $0.hasPrefix("#") })
        #expect(
            links.allSatisfy { link in ["#", "Images/", "Audio/", "Video/"].contains { link.hasPrefix($0) } },
            "\(links)")
        // Every item's type hint and transforms are on its card.
        for entry in entries {
            if let uti = entry["uti"] as? String { #expect(all.html.contains(">\(uti)<"), "\(uti)") }
            for step in entry["transform"] as? [String] ?? [] {
                #expect(all.html.contains(">\(Self.serialized(step))<"), "\(step)")
            }
            for warning in entry["warnings"] as? [String] ?? [] {
                #expect(all.html.contains(">\(Self.serialized(warning))<"), "\(warning)")
            }
        }

        for status in ["prepared", "rejected", "failed"] {
            let page = try browser.dumpDOM(report, hash: "status=\(status)&fold=0")
            let cards = Self.cards(page.html)
            #expect(page.body["data-status"] == status)
            #expect(cards.map(\.index) == statuses.indices.filter { statuses[$0] == status }, "\(status)")
            #expect(page.body["data-shown"] == String(cards.count))
        }
        let webp = try browser.dumpDOM(report, hash: "q=WebP")
        let mentioningWebP = entries.indices.filter { Self.text(of: entries[$0]).lowercased().contains("webp") }
        #expect(mentioningWebP.count >= 3)
        #expect(Self.cards(webp.html).map(\.index) == mentioningWebP)

        // The same URL twice (demo line 1 and 2 name the same photo) is one card with a count.
        let folded = try browser.dumpDOM(report)
        let twice = try #require(
            entries.indices.first { i in entries.indices.contains { $0 > i && entries[$0]["input"] as? String == entries[i]["input"] as? String } })
        #expect(folded.body["data-cards"] == "15" && folded.body["data-matching"] == "16", "\(folded.body)")
        #expect(Self.cards(folded.html).count == 15)
        #expect(folded.html.contains(#"data-index="\#(twice)" data-status="prepared" data-count="2""#))
        // The WAV plays in place, from the container.
        let players = folded.html.matches(of: /<audio[^>]*>/).map { String($0.0) }
        #expect(players.count == 1 && players[0].contains(#"src="Audio/"#) && players[0].contains("controls"), "\(players)")
        // Each refusal shows what arrived: the manifest's first bytes, as hex on its card.
        let refused = entries.filter { $0["status"] as? String == "rejected" }
        #expect(!refused.isEmpty)
        for entry in refused {
            let hex = try #require(entry["first_bytes"] as? String, "\(entry)")
            let pairs = stride(from: 0, to: hex.count, by: 2).map { String(Array(hex)[$0..<$0 + 2]) }
            #expect(folded.html.contains(pairs.joined(separator: " ")), "\(hex)")
        }

        let png = dir.appendingPathComponent("demo.png")
        try browser.screenshot(report, to: png)
        try Self.expectRealScreenshot(png, width: 1280, height: 900)
    }

    // MARK: - 10,000 items

    /// The demo's entries and 10,000 generated ones (with hostile text among them) in a manifest
    /// written the way another tool might (key order, escaped slashes, raw U+2028): the page
    /// holds every item, pages and filters them, runs none of their text, and says how long the
    /// first page took.
    @Test(.enabled(if: HeadlessChromium.shouldRun, HeadlessChromium.skipReason))
    func tenThousandItemsInChromium() throws {
        let browser = try HeadlessChromium()
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let container = try Self.prepareDemo(in: dir)
        let demo = try Self.entries(of: container)
        try #require(demo.contains { $0["status"] as? String == "prepared" && $0["thumbnail"] is String })
        let generated = Self.generatedEntries(count: 10_000, after: demo)
        let entries = demo + generated
        try Self.writeManifest(entries, to: container)
        let statuses = entries.map { $0["status"] as! String }
        let total = entries.count

        let result = try ProcessRunner.run("pushattach", ["report", container.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let counts = ["prepared", "rejected", "failed"].map { status in statuses.filter { $0 == status }.count }
        let report = container.appendingPathComponent("report.html")
        #expect(
            result.stdout
                == "\(total) items: \(counts[0]) prepared, \(counts[1]) rejected, \(counts[2]) failed\nreport:    \(report.path)\n"
        )
        let size = try FileManager.default.attributesOfItem(atPath: report.path)[.size] as? Int ?? 0

        // The default view and the rejected filter: one page each, timed by the page itself.
        let first = try browser.dumpDOM(report)
        #expect(first.body["data-total"] == String(total))
        let folded = Self.foldedIndices(entries)
        #expect(Self.cards(first.html).map(\.index) == Array(folded.prefix(200)))
        #expect(first.body["data-pages"] == String((folded.count + 199) / 200))
        let rejected = statuses.indices.filter { statuses[$0] == "rejected" }
        let page = try browser.dumpDOM(report, hash: "status=rejected")
        #expect(page.body["data-matching"] == String(rejected.count))
        #expect(Self.cards(page.html).map(\.index) == Array(rejected.prefix(200)))
        let lastPage = (rejected.count + 199) / 200
        let last = try browser.dumpDOM(report, hash: "status=rejected&page=\(lastPage)")
        #expect(Self.cards(last.html).map(\.index) == Array(rejected[((lastPage - 1) * 200)...]))

        // Every item, on one page: each index once, with its status.
        let everything = try browser.dumpDOM(report, hash: "per=all&fold=0")
        let cards = Self.cards(everything.html)
        #expect(cards.count == total)
        #expect(cards.map(\.index) == Array(0..<total))
        #expect(cards.map(\.status) == statuses)

        // Search, with the status counts among the matches.
        let one = try browser.dumpDOM(report, hash: "q=gen-04242")
        #expect(Self.cards(one.html).map(\.index) == [demo.count + 4242])
        let failedWebP = try browser.dumpDOM(report, hash: "status=failed&q=.webp%20timed")
        let expected = entries.indices.filter {
            statuses[$0] == "failed" && (entries[$0]["input"] as! String).contains(".webp")
                && (entries[$0]["reason"] as? String ?? "").contains("timed")
        }
        #expect(Self.cards(failedWebP.html).map(\.index) == Array(expected.prefix(200)))

        // Hostile text is shown, never run or parsed as markup.
        for view in [everything, first] {
            #expect(view.body["data-pwned"] == nil, "\(view.body)")
            #expect(!view.html.contains("<img src=\"x\""))
            #expect(!view.html.contains("<script>document"))
        }
        #expect(everything.html.contains(#"photo\u{202E}gpj.exe"#))
        #expect(everything.html.contains(#"line\u{2028}separator\u{2029}paragraph"#))
        #expect(everything.html.contains("&lt;/style&gt;&lt;style&gt;body{display:none}&lt;/style&gt;"))

        let png = dir.appendingPathComponent("big.png")
        try browser.screenshot(report, hash: "status=rejected", to: png)
        try Self.expectRealScreenshot(png, width: 1280, height: 900)

        func ms(_ page: HeadlessChromium.Page) -> String { page.body["data-rendered-ms"] ?? "?" }
        print(
            """
            report: \(total) items, \(size / 1000) kB of HTML; first page laid out at \(ms(page)) ms with \
            #status=rejected (target under 1000 ms), \(ms(first)) ms unfiltered, \(ms(everything)) ms with all \
            \(total) cards on one page (chromium ran \(String(format: "%.1f", page.seconds)) s, \
            \(String(format: "%.1f", first.seconds)) s, \(String(format: "%.1f", everything.seconds)) s)
            """)
        #expect(Int(ms(page)) != nil && Int(ms(first)) != nil, "\(page.body)")
    }

    // MARK: - Sorting, grouping, folding, media and first bytes, at 10,000 items

    /// The 10,000-item manifest with a video, a URL named three times, and refusals whose first
    /// bytes are an HTML page or a JPEG header: each order, each grouping and the folding give
    /// the cards the manifest says they should, in a real browser.
    @Test(.enabled(if: HeadlessChromium.shouldRun, HeadlessChromium.skipReason))
    func sortGroupFoldAtTenThousand() throws {
        let browser = try HeadlessChromium()
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let container = try Self.prepareDemo(in: dir)
        let demo = try Self.entries(of: container)
        var generated = Self.generatedEntries(count: 10_000, after: demo)
        // A movie (a placeholder file: the page is checked, not the codec), and one URL named
        // three times (generated items 6, 7 and 8 are prepared ones).
        try FileManager.default.createDirectory(
            at: container.appendingPathComponent("Video"), withIntermediateDirectories: true)
        let movie = "Video/7D2C1B0A-0000-4000-8000-000000000001-clip.mp4"
        try Data(count: 64).write(to: container.appendingPathComponent(movie))
        generated[5].merge(
            ["file": movie, "thumbnail": NSNull(), "format": "mp4", "category": "movie", "uti": "public.mpeg-4"]
        ) { $1 }
        for n in [7, 8] {
            for key in ["input", "file", "thumbnail", "sha256", "bytes"] { generated[n][key] = generated[6][key] }
        }
        let entries = demo + generated
        try Self.writeManifest(entries, to: container)
        let result = try ProcessRunner.run("pushattach", ["report", container.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let report = container.appendingPathComponent("report.html")
        let all = Array(entries.indices)

        // Orders: largest first, slowest first, by name; ties in input order.
        func bytes(_ i: Int) -> Int { entries[i]["bytes"] as? Int ?? -1 }
        func ms(_ i: Int) -> Int { (entries[i]["timings"] as? [String: Int] ?? [:]).values.reduce(0, +) }
        let orders: [(String, [Int])] = [
            ("size", all.sorted { (bytes($0), -$0) > (bytes($1), -$1) }),
            ("time", all.sorted { (ms($0), -$0) > (ms($1), -$1) }),
            ("name", all.sorted { (Self.displayName($0, entries), $0) < (Self.displayName($1, entries), $1) }),
        ]
        for (sort, expected) in orders {
            let page = try browser.dumpDOM(report, hash: "sort=\(sort)&fold=0")
            #expect(page.body["data-sort"] == sort)
            #expect(Self.cards(page.html).map(\.index) == Array(expected.prefix(200)), "sort=\(sort)")
        }

        // Groups by reason: a heading and a link per group, with the manifest's counts, in status order.
        var groups: [String: Int] = [:]
        for entry in entries { groups[Self.group(of: entry), default: 0] += 1 }
        let byReason = try browser.dumpDOM(report, hash: "group=reason&fold=0")
        let links = byReason.html.matches(of: /<a data-group="([^"]*)"[^>]*>[^<]*<span class="n">(\d+)<\/span>/)
            .map { (Self.unescaped(String($0.1)), Int($0.2)!) }
        #expect(Dictionary(links, uniquingKeysWith: +) == groups)
        let order = ["prepared", "rejected", "failed"]
        let ranks: [Int] = links.map { link in order.firstIndex(of: String(link.0.prefix { $0 != " " })) ?? -1 }
        #expect(ranks == ranks.sorted() && !ranks.contains(-1), "\(ranks)")
        let timeouts = "failed timed-out"
        let key = timeouts.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let one = try browser.dumpDOM(report, hash: "group=reason&key=\(key)&fold=0&per=all")
        let expected = all.filter { Self.group(of: entries[$0]) == timeouts }
        #expect(one.body["data-matching"] == String(expected.count) && expected.count > 100)
        #expect(Self.cards(one.html).map(\.index) == expected)
        #expect(one.html.contains(#"<h3 class="group" data-group="\#(timeouts)" data-count="\#(expected.count)">"#))
        let byStatus = try browser.dumpDOM(report, hash: "group=status")
        let prepared = entries.filter { $0["status"] as? String == "prepared" }.count
        #expect(byStatus.html.contains(#"<h3 class="group" data-group="prepared" data-count="\#(prepared)">"#))

        // Folding, media and first bytes on the default view's first page.
        let first = try browser.dumpDOM(report)
        let thrice = demo.count + 6
        #expect(first.html.contains(#"data-index="\#(thrice)" data-status="prepared" data-count="3""#))
        #expect(!Self.cards(first.html).contains { $0.index == thrice + 1 || $0.index == thrice + 2 })
        #expect(first.body["data-cards"] == String(Self.foldedIndices(entries).count))
        #expect(first.html.contains(#"<video controls="" preload="metadata" src="\#(movie)""#))
        let html = generated.firstIndex { ($0["first_bytes"] as? String)?.hasPrefix("3c21") == true }!
        let page = try browser.dumpDOM(report, hash: "status=rejected&q=gen-\(String(format: "%05d", html))")
        #expect(page.html.contains("<span class=\"ascii\">&lt;!DOCTYPE html&gt;&lt;html&gt;&lt;head&gt;&lt;titl</span>"))
        #expect(page.html.contains("3c 21 44 4f 43 54 59 50 45"))
        #expect(page.html.contains("no media type recognised"))
        let jpeg = try browser.dumpDOM(report, hash: "status=rejected&q=gen-\(String(format: "%05d", html + 1))")
        #expect(jpeg.html.contains(#"\xff\xd8\xff\xe0\x00\x10JFIF"#) && jpeg.html.contains(#"<dd class="sniffed">jpeg</dd>"#))
        // The full URL on hover, and a copy button beside it.
        #expect(first.html.contains(#"<span class="url" title="\#(entries[0]["input"] as! String)" tabindex="0">"#))
        #expect(first.html.matches(of: /<button class="copy" type="button"/).count == Self.cards(first.html).count)
    }

    /// The group `group=reason` puts an entry in (`PrepareSummary.reasonKey`, as the console counts).
    static func group(of entry: [String: Any]) -> String {
        let status = entry["status"] as? String ?? "?"
        if status == "prepared" { return "prepared" + ((entry["action"] as? String).map { " \u{B7} " + $0 } ?? "") }
        let code = (entry["error_code"] as? Int).map { " \($0)" } ?? ""
        let word = (status == "rejected" ? entry["refusal"] : entry["failure"]) as? String ?? "unknown"
        return status + code + " " + word
    }

    /// Indices of the cards the default (folded) view shows: an item naming a URL an earlier item
    /// named, with the same outcome, is folded into that one's card.
    static func foldedIndices(_ entries: [[String: Any]]) -> [Int] {
        var seen = Set<String>()
        return entries.indices.filter { i in
            let entry = entries[i]
            guard let input = entry["input"] as? String, input.firstMatch(of: /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//) != nil
            else { return true }
            let status = entry["status"] as? String ?? ""
            let outcome = entry[status == "prepared" ? "file" : "reason"] as? String ?? ""
            return seen.insert(status + "\n" + input + "\n" + outcome).inserted
        }
    }

    /// The name a card shows and `sort=name` orders by: the URL's last path segment, decoded, lowercased.
    static func displayName(_ i: Int, _ entries: [[String: Any]]) -> String {
        let input = entries[i]["input"] as? String ?? ""
        let path = input.prefix { $0 != "?" && $0 != "#" }
        let last = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let name = last.isEmpty ? input : last
        return (name.removingPercentEncoding ?? name).lowercased()
    }

    /// An attribute value as Chromium serialises it, read back.
    static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&nbsp;", with: "\u{A0}")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    // MARK: - The command line

    /// The container's name is the user's, but is escaped all the same.
    @Test func prepareReportSaysWhereTheReportIs() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out <b x=\"1\">&amp;'")
        let jpeg = Corpus.testImages.appendingPathComponent("small-320x240.jpg")
        let result = try ProcessRunner.run("pushattach", ["prepare", jpeg.path, "-o", out.path, "-q", "--report"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.hasSuffix("manifest:  \(out.path)/manifest.json\nreport:    \(out.path)/report.html\n"))
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.hasSuffix("</html>\n"))
        #expect(html.contains("default-src 'none'"))
        #expect(html.contains("<title>PushAttach report: out &lt;b x=&quot;1&quot;&gt;&amp;amp;&#39;</title>"))
        #expect(!html.contains("<b x="))
    }

    @Test func reportWithoutAManifestSaysWhatToRun() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try ProcessRunner.run("pushattach", ["report", dir.path])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "pushattach report: cannot write the report: no manifest.json in \(dir.path): run 'pushattach prepare … --container \(dir.path)' first\n"
        )
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("report.html").path))
    }

    @Test func reportOfATruncatedManifestNamesTheByte() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text =
            ##"{"schema_version": 1, "created": "2024-05-01T12:00:00Z", "entries": [{"index": 0, "input": "https://cu"##
        try Data(text.utf8).write(to: dir.appendingPathComponent("manifest.json"))
        let result = try ProcessRunner.run("pushattach", ["report", dir.path])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "pushattach report: cannot write the report: \(dir.path)/manifest.json is not a manifest pushattach can read (at byte \(text.utf8.count)): the file ends inside a value (cut short?)\n"
        )
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(left == ["manifest.json"], "no report, no temporary: \(left)")
    }

    @Test(arguments: [
        ([String](), "pushattach report: no DIR given: name the container prepare wrote"),
        (["/nonexistent/out"], "pushattach report: no such folder: /nonexistent/out"),
        (["a", "b"], "pushattach report: unexpected argument 'b': one DIR at a time"),
        (["--json", "a"], "pushattach report: unknown option '--json'"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let result = try ProcessRunner.run("pushattach", ["report"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("hint: run 'pushattach report --help'\n"), "\(result.stderr)")
    }

    // MARK: - Helpers

    /// A fresh folder under the system's temporary one, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("report-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Runs demo/attachments.txt against a server over TestImages/ with `--thumbnail 256 --report`,
    /// as `make demo` does, into `dir/demo`.
    static func prepareDemo(in dir: URL) throws -> URL {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let types = [
            "jpg": "image/jpeg", "png": "image/png", "webp": "image/webp", "gif": "image/gif", "wav": "audio/x-wav",
        ]
        for name in try FileManager.default.contentsOfDirectory(atPath: Corpus.testImages.path) {
            let file = Corpus.testImages.appendingPathComponent(name)
            let type = types[file.pathExtension] ?? "text/plain"
            server.route("/" + name) { _ in .file(file, contentType: type) }
        }
        let template = try String(
            contentsOf: Corpus.packageRoot.appendingPathComponent("demo/attachments.txt"), encoding: .utf8)
        let list = dir.appendingPathComponent("attachments.txt")
        try Data(template.replacingOccurrences(of: "{{BASE}}", with: String(server.url("/").dropLast())).utf8).write(
            to: list)
        let container = dir.appendingPathComponent("demo")
        let result = try ProcessRunner.run(
            "pushattach",
            [
                "prepare", list.path, "--container", container.path, "--allow-private-networks", "--thumbnail", "256",
                "--report", "-q",
            ])
        guard result.status == 1, result.stderr.contains("report:    \(container.path)/report.html") else {
            throw HeadlessChromium.Failure(description: "prepare exited \(result.status): \(result.stderr)")
        }
        return container
    }

    static func entries(of container: URL) throws -> [[String: Any]] {
        let data = try Data(contentsOf: container.appendingPathComponent("manifest.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(document["entries"] as? [[String: Any]])
    }

    /// A manifest as another writer might produce it: keys sorted, slashes escaped, pretty.
    static func writeManifest(_ entries: [[String: Any]], to container: URL) throws {
        let document: [String: Any] = ["schema_version": 1, "created": "2024-05-01T12:00:00Z", "entries": entries]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: container.appendingPathComponent("manifest.json"))
    }

    /// `count` entries after the demo's, every key of the schema present: 70 % prepared (reusing
    /// the demo's files and thumbnails), 20 % rejected, 10 % failed; a few carry hostile text.
    static func generatedEntries(count: Int, after demo: [[String: Any]]) -> [[String: Any]] {
        let prepared = demo.filter { $0["status"] as? String == "prepared" && $0["thumbnail"] is String }
        var random = SplitMix64(seed: TestSeed.value(default: 20_240_501, for: "report: generated entries"))
        return (0..<count).map { n in
            let kind = n % 20
            let ext = ["jpg", "png", "webp", "gif"][Int(random.next() % 4)]
            var input = "https://cdn.example.test/batch/gen-\(String(format: "%05d", n)).\(ext)"
            var entry: [String: Any] = [
                "index": demo.count + n, "line": n + 1, "id": n % 7 == 0 ? "push-\(n)" : NSNull(),
                "error_code": NSNull(), "refusal": NSNull(), "failure": NSNull(), "deviation": NSNull(), "action": NSNull(),
                "reason": NSNull(), "file": NSNull(), "identifier": NSNull(),
                "uti": NSNull(), "format": NSNull(), "category": NSNull(), "bytes": NSNull(), "width": NSNull(),
                "height": NSNull(), "frames": NSNull(), "source_width": NSNull(), "source_height": NSNull(),
                "sha256": NSNull(), "transform": NSNull(), "thumbnail": NSNull(), "warnings": [String](),
                "first_bytes": NSNull(),
                "timings": ["download_ms": (n * 37) % 500, "process_ms": 20, "write_ms": 1],
            ]
            let hostile = n % 997 == 0 ? Self.hostile[(n / 997) % Self.hostile.count] : nil
            if let hostile { input += "?name=" + hostile }
            entry["input"] = input
            switch kind {
            case 0..<14:
                var model = prepared[n % prepared.count]
                model["index"] = nil
                for key in [
                    "file", "identifier", "uti", "format", "category", "bytes", "first_bytes", "width", "height", "frames",
                    "source_width", "source_height", "sha256", "transform", "thumbnail",
                ] {
                    entry[key] = model[key] ?? NSNull()
                }
                entry["status"] = "prepared"
                if let hostile { entry["warnings"] = [hostile, "second warning"] }
            case 14..<18:
                entry["status"] = "rejected"
                entry["bytes"] = 6000 + n
                if n % 2 == 0 {
                    // An HTML error page served as the image: nothing sniffed, its text shown.
                    entry["error_code"] = 101
                    entry["refusal"] = "not-media"
                    entry["reason"] = hostile ?? "not media: the bytes are not an image, audio or video iOS knows"
                    entry["first_bytes"] = Array(Self.htmlPage.prefix(32)).map { String(format: "%02x", $0) }.joined()
                } else {
                    entry["error_code"] = 105
                    entry["refusal"] = "damaged"
                    entry["reason"] = hostile ?? "the JPEG image data is damaged (Premature end of JPEG file)"
                    entry["format"] = "jpeg"
                    entry["category"] = "image"
                    entry["source_width"] = 1600
                    entry["source_height"] = 1200
                    entry["first_bytes"] = "ffd8ffe000104a46494600010100000100010000"
                }
            default:
                entry["status"] = "failed"
                entry["failure"] = n % 3 == 0 ? "http-404" : "timed-out"
                entry["reason"] = hostile ?? (n % 3 == 0 ? "HTTP 404 Not Found" : "timed out after 25 s")
            }
            return entry
        }
    }

    /// What an origin serves instead of a picture, now and then.
    static let htmlPage = Array("<!DOCTYPE html><html><head><title>404 Not Found</title></head></html>".utf8)

    /// The text fields of an entry, as the page's search sees them.
    static func text(of entry: [String: Any]) -> String {
        let fields = ["input", "id", "status", "reason", "file", "uti", "format", "category"].compactMap {
            entry[$0] as? String
        }
        return (fields + (entry["warnings"] as? [String] ?? []) + (entry["transform"] as? [String] ?? []))
            .joined(separator: "\n")
    }

    /// `text` as Chromium serialises a text node: `&`, `<` and `>` as entities (and U+00A0).
    static func serialized(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\u{A0}", with: "&nbsp;")
    }

    /// The cards in a dumped DOM, in page order.
    static func cards(_ html: String) -> [(index: Int, status: String)] {
        html.matches(of: /<article[^>]* data-index="(\d+)" data-status="([a-z]+)"/).map { (Int($0.1)!, String($0.2)) }
    }

    /// A PNG of the expected size, decoded by the repository's own codec, that is a picture: many
    /// colours, not one.
    static func expectRealScreenshot(_ png: URL, width: Int, height: Int) throws {
        let data = try Data(contentsOf: png)
        #expect(data.count > 20_000, "\(data.count) bytes")
        #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let image = try PNGCodec.decode(data, options: DecodeOptions())
        let pixels = image.pixels
        #expect(pixels.width == width && pixels.height == height)
        let channels = pixels.layout.channels
        var colours = Set<UInt32>()
        for y in stride(from: 0, to: pixels.height, by: 3) {
            for x in stride(from: 0, to: pixels.width, by: 3) {
                let offset = y * pixels.stride + x * channels
                let rgb = pixels.bytes[offset..<offset + min(3, channels)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                colours.insert(rgb)
            }
        }
        #expect(colours.count > 200, "\(colours.count) colours in \(png.lastPathComponent)")
    }
}
