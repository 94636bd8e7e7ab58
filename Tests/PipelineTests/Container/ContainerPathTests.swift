import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// The one check of a path read from a journal or a manifest (`ContainerPath`), the system-call
/// wrapper's refusal of a NUL byte, and each reader that applies the check: the merge that
/// writes `manifest.json`, `Manifest.load`, the report.
@Suite("Container: paths from outside the run are checked as bytes", .tags(.slow), .notInFastTier)
struct ContainerPathTests {
    @Test(arguments: [
        "Images/3F2C0000-0000-0000-0000-000000000000-cat.jpg", "Audio/A-tone.m4a", "Video/A-clip.mp4",
        "Thumbnails/A-cat.jpg", "Images/A-Zürich-写真.jpg", "Images/" + String(repeating: "a", count: 255),
    ])
    func pathsTheRunWritesPass(_ path: String) {
        #expect(ContainerPath.problem(path) == nil)
    }

    @Test(arguments: [
        ("..\u{0}/outside.bin", "NUL"),
        ("Images/A-a.jpg\u{0}", "NUL"),
        ("Images/A-\u{1}a.jpg", "control character"),
        ("Images/A-\u{7F}a.jpg", "control character"),
        ("Images/A-\u{85}a.jpg", "control, bidi or invisible"),
        ("Images/A-\u{202E}gpj.exe", "control, bidi or invisible"),
        ("/etc/passwd", "absolute"),
        ("Images//A-a.jpg", "empty component"),
        ("Images/", "empty component"),
        ("", "empty"),
        ("../outside.jpg", "'..'"),
        ("Images/../manifest.json", "'..'"),
        ("Images/.", "'..'"),
        ("manifest.jsonl", "not a file directly in"),
        ("Images/sub/A-a.jpg", "not a file directly in"),
        ("Elsewhere/A-a.jpg", "not a file directly in"),
        ("Images/.A-a.jpg.tmp-0123abcd", "hidden"),
        ("Images/" + String(repeating: "a", count: 256), "over"),
        (String(repeating: "Images/", count: 1000), "bytes long"),
    ])
    func pathsFromElsewhereAreRefused(_ path: String, _ why: String) {
        let problem = ContainerPath.problem(path)
        #expect(problem?.contains(why) == true, "\(problem ?? "passed")")
    }

    /// The C call would see `..`: the wrapper refuses the name first, naming the call and path.
    @Test func systemCallWrapperRefusesANulByte() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let folder = try DirectoryHandle(opening: dir.url.path)
        let path = folder.path(of: "..\u{0}")
        #expect(throws: ContainerError.refusedPath(call: "stat", path: path, reason: "it holds a NUL byte")) {
            _ = try folder.status("..\u{0}")
        }
        #expect(throws: ContainerError.refusedPath(call: "open", path: path, reason: "it holds a NUL byte")) {
            _ = try folder.folder("..\u{0}", create: false)
        }
        #expect(throws: ContainerError.refusedPath(call: "open", path: "/tmp\u{0}/x", reason: "it holds a NUL byte")) {
            _ = try SystemCall.open("/tmp\u{0}/x", .readOnly)
        }
        let message = ContainerError.refusedPath(call: "open", path: path, reason: "it holds a NUL byte").description
        #expect(message.contains("open(2) refused for") && message.contains("NUL") && !message.contains("\u{0}"))
        #expect(!ContainerError.refusedPath(call: "open", path: path, reason: "").isFatal)
    }

    /// A journal with a forged line and a good one: `manifest.json` gets the good one only, and
    /// the merge says which line it skipped and why.
    @Test func mergeSkipsALineWithAForgedPath() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try ManifestJournal(directory: dir.url)
        try journal.append(
            ManifestEntry(
                index: 0, input: "https://x.test/a.jpg", line: 1, status: .prepared, file: "..\u{0}/x", bytes: 1))
        try journal.append(
            ManifestEntry(
                index: 1, input: "https://x.test/b.jpg", line: 2, status: .prepared, file: "Images/B-b.jpg", bytes: 1,
                thumbnail: "Thumbnails/../../x"))
        try journal.append(
            ManifestEntry(
                index: 2, input: "https://x.test/c.jpg", line: 3, status: .prepared, file: "Images/C-c.jpg", bytes: 1))
        try journal.close()

        let merged = try Manifest.merge(dir: dir.url)
        #expect(merged.count == 1)
        #expect(merged.warnings.count == 2, "\(merged.warnings)")
        #expect(
            merged.warnings.first?.hasPrefix(
                "manifest.jsonl:1: file path ..\\u{00}/x is not trusted (it holds a NUL byte)") == true,
            "\(merged.warnings)")
        let document = try JSONDecoder().decode(
            Manifest.Document.self, from: Data(contentsOf: dir.url.appendingPathComponent(Manifest.fileName)))
        #expect(document.entries.map(\.input) == ["https://x.test/c.jpg"])
        #expect(try Manifest.load(dir: dir.url).entries.map(\.input) == ["https://x.test/c.jpg"])
    }

    /// A line read back by place (the dedupe table's, a resume index's) is checked again: the
    /// file may have been edited under the run since the line was written or indexed.
    @Test func linesReadBackByPlaceAreCheckedAgain() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try FileManager.default.createDirectory(
            at: dir.url.appendingPathComponent("Images"), withIntermediateDirectories: true)
        try Data("abcd".utf8).write(to: dir.url.appendingPathComponent("Images/A-a.jpg"))
        let journal = try ManifestJournal(directory: dir.url)
        let url = "https://x.test/a.jpg"
        let line = try journal.append(
            ManifestEntry(index: 0, input: url, line: 1, status: .prepared, file: "Images/A-a.jpg", bytes: 4))
        try journal.sync()
        let index = try ResumeIndex(dir: dir.url, journals: [ManifestJournal.fileName])
        #expect(try index.prepared(url: url)?.file == "Images/A-a.jpg")

        // The same line, the same length, now naming a hidden file.
        let file = dir.url.appendingPathComponent(ManifestJournal.fileName)
        let text = try String(contentsOf: file, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "Images/A-a.jpg", with: "Images/.-a.jpg").utf8).write(to: file)
        #expect(try index.prepared(url: url) == nil)
        #expect(throws: ContainerError.self) { _ = try journal.read(line) }
        try journal.close()
    }

    /// The report reads `manifest.json`, which is as editable: a forged path is not linked.
    @Test func reportDoesNotLinkAForgedPath() {
        let entry = ManifestEntry(
            input: "https://x.test/a.jpg", line: 1, status: .prepared, file: "..\u{0}/x",
            thumbnail: "Thumbnails/T-a.jpg")
        let shown = ReportWriter.trusted(entry)
        #expect(shown.file == nil && shown.thumbnail == "Thumbnails/T-a.jpg")
        #expect(shown.warnings.count == 1 && shown.warnings[0].contains("not trusted (it holds a NUL byte)"))
        #expect(ReportWriter.trusted(shown) == shown)
    }
}
