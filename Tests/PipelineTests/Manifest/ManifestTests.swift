import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

@Suite("Manifest: entries, journal, finalize, resume", .tags(.slow), .notInFastTier)
struct ManifestTests {
    /// The declared order, written out here so a change to it is a deliberate change to a test.
    static let keyOrder = [
        "index", "input", "line", "id", "status", "action", "deviation", "error_code", "refusal", "failure", "reason", "file",
        "identifier", "uti", "format",
        "category", "bytes", "first_bytes", "width", "height", "frames", "source_width", "source_height", "sha256",
        "transform", "thumbnail", "warnings", "timings",
    ]
    static let allKeys = Set(keyOrder)

    func jsonObject(_ entry: ManifestEntry) throws -> [String: Any] {
        let data = try JSONEncoder().encode(entry)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func failedEntryHasEveryKeyWithNulls() throws {
        let entry = ManifestEntry(input: "https://x.test/a.jpg", line: 3, status: .failed, reason: "HTTP 404")
        let object = try jsonObject(entry)
        #expect(Set(object.keys) == Self.allKeys)
        for key in [
            "id", "error_code", "file", "identifier", "uti", "format", "category", "bytes", "first_bytes", "width",
            "height", "frames", "source_width", "source_height", "sha256", "transform", "thumbnail",
        ] {
            #expect(object[key] is NSNull, "\(key) should be null")
        }
        #expect(object["status"] as? String == "failed")
        #expect(object["reason"] as? String == "HTTP 404")
        #expect((object["warnings"] as? [Any])?.isEmpty == true)
        let timings = try #require(object["timings"] as? [String: Any])
        #expect(Set(timings.keys) == ["download_ms", "process_ms", "write_ms"])
    }

    @Test func preparedEntryRoundTrips() throws {
        let entry = ManifestEntry(
            index: 6, input: "https://x.test/a.webp", line: 7, id: "42", status: .prepared, file: "Images/ABC-a.jpg",
            identifier: "ABC", uti: "public.jpeg", format: "jpeg", category: "image", bytes: 1234, width: 640,
            height: 480, frames: 1, sourceWidth: 480, sourceHeight: 640, sha256: String(repeating: "0", count: 64),
            transform: ["decoded WebP", "encoded JPEG q85"],
            thumbnail: "Thumbnails/ABC-a.jpg", warnings: ["Content-Type said image/png"],
            timings: .init(downloadMs: 10, processMs: 20, writeMs: 3))
        let object = try jsonObject(entry)
        #expect(Set(object.keys) == Self.allKeys)
        #expect(object["file"] as? String == "Images/ABC-a.jpg")
        #expect((object["timings"] as? [String: Any])?["process_ms"] as? Int == 20)
        #expect(object["source_width"] as? Int == 480 && object["source_height"] as? Int == 640)
        let decoded = try JSONDecoder().decode(ManifestEntry.self, from: try JSONEncoder().encode(entry))
        #expect(decoded == entry)
        #expect(try JSONDecoder().decode(ManifestEntry.self, from: entry.jsonLine()) == entry)
    }

    @Test func journalFinalizeDedupesLastWins() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try ManifestJournal(directory: dir.url, syncEvery: 2)
        try journal.append(
            ManifestEntry(index: 0, input: "https://x.test/a.jpg", line: 1, status: .failed, reason: "timeout"))
        try journal.append(
            ManifestEntry(
                index: 1, input: "https://x.test/b.svg", line: 2, status: .rejected, errorCode: 101, reason: "SVG"))
        try journal.append(
            ManifestEntry(index: 0, input: "https://x.test/a.jpg", line: 1, status: .prepared, file: "Images/A-a.jpg"))
        try journal.close()
        try journal.close()  // idempotent

        let lines = try String(contentsOf: dir.url.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { !$0.contains("\\/") })  // slashes not escaped
        #expect(lines.allSatisfy { JSONKeys.topLevel(of: String($0)) == Self.keyOrder })

        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let finalized = try Manifest.finalize(dir: dir.url, now: date)
        #expect(finalized.count == 2 && finalized.statuses == [.prepared: 1, .rejected: 1])
        let data = try Data(contentsOf: dir.url.appendingPathComponent("manifest.json"))
        let written = try JSONDecoder().decode(Manifest.Document.self, from: data)
        #expect(written.entries.map(\.status) == [.prepared, .rejected])
        #expect(written.entries.map(\.errorCode) == [nil, 101])
        #expect(written.entries == (try Manifest.readJournal(dir: dir.url)).entries)
        #expect(dir.names().filter { $0.contains(".tmp-") }.isEmpty)

        // The text: `schema_version` first, every entry's keys in the declared order.
        let text = String(decoding: data, as: UTF8.self)
        #expect(JSONKeys.topLevel(of: text) == ["schema_version", "created", "entries"])
        #expect(
            text.hasPrefix("{\n  \"schema_version\": 4,\n  \"created\": \"2023-11-14T22:13:20Z\",\n  \"entries\": [\n"))
        #expect(text.hasSuffix("\n  ]\n}\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["schema_version"] as? Int == Manifest.schemaVersion)
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.count == 2)
        #expect(JSONKeys.entries(of: text) == [Self.keyOrder, Self.keyOrder])
        // Each entry is what its journal line says, only laid out on several lines.
        #expect(
            written.entries.map { String(decoding: $0.jsonLine(), as: UTF8.self) }
                == [String(lines[2]), String(lines[1])])
    }

    /// Lines appended out of order (as items finish) come out of `finalize` in input order, the
    /// last line of each item winning; the journal keeps its completion order.
    @Test func finalizeListsEntriesInInputOrder() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try ManifestJournal(directory: dir.url)
        func entry(_ index: Int, _ url: String, line: Int, _ status: ManifestEntry.Status = .prepared)
            -> ManifestEntry
        {
            ManifestEntry(index: index, input: "https://x.test/\(url)", line: line, status: status)
        }
        // Two INPUTs: list A has lines 1-3 (indices 0-2), list B lines 1-2 (indices 3-4). The same
        // URL at line 1 of both is two items.
        let finished = [
            entry(4, "e.jpg", line: 2), entry(1, "b.jpg", line: 2, .failed), entry(3, "a.jpg", line: 1),
            entry(2, "c.jpg", line: 3), entry(0, "a.jpg", line: 1), entry(1, "b.jpg", line: 2),
        ]
        for item in finished { try journal.append(item) }
        try journal.close()

        try Manifest.finalize(dir: dir.url)
        let document = try JSONDecoder().decode(
            Manifest.Document.self, from: Data(contentsOf: dir.url.appendingPathComponent("manifest.json")))
        #expect(document.entries.map(\.index) == [0, 1, 2, 3, 4])
        #expect(document.entries.map(\.line) == [1, 2, 3, 1, 2])
        #expect(document.entries[1].status == .prepared, "the later line for an item wins")
        #expect(try Manifest.readJournal(dir: dir.url).entries == document.entries)
        let journalIndices = try String(contentsOf: dir.url.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try JSONDecoder().decode(ManifestEntry.self, from: Data($0.utf8)).index }
        #expect(journalIndices == [4, 1, 3, 2, 0, 1], "the journal stays in completion order")
    }

    /// U+2028, U+2029, C1 and bidi controls written `\uXXXX` in the journal and the manifest, and
    /// read back as they were; quotes, backslashes and C0 controls escaped as JSON requires.
    @Test func separatorsAndControlsAreEscapedAndRoundTrip() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let reason =
            "line\u{2028}para\u{2029}bidi\u{202E}c1\u{85} \"quoted\" back\\slash tab\t nl\n esc\u{1B} Zürich/写真"
        let entry = ManifestEntry(
            index: 0, input: "https://x.test/a.jpg?q=1/2", line: 1, status: .failed, reason: reason,
            warnings: ["\u{2028}"])
        let line = String(decoding: entry.jsonLine(), as: UTF8.self)
        for escaped in [
            #"\u2028"#, #"\u2029"#, #"\u202E"#, #"\u0085"#, #"\"quoted\""#, #"back\\slash"#, #"\t"#, #"\n"#,
        ] {
            #expect(line.contains(escaped), "\(escaped) in \(line)")
        }
        #expect(line.contains(#"\u001B"#) && line.contains("Zürich/写真") && line.contains("q=1/2"))
        #expect(!line.unicodeScalars.contains { $0.value == 0x2028 || $0.value == 0x2029 || $0.value < 0x20 })
        #expect(try JSONDecoder().decode(ManifestEntry.self, from: Data(line.utf8)) == entry)

        let journal = try ManifestJournal(directory: dir.url)
        try journal.append(entry)
        try journal.close()
        try Manifest.finalize(dir: dir.url)
        let data = try Data(contentsOf: dir.url.appendingPathComponent("manifest.json"))
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#"\u2028"#) && !text.unicodeScalars.contains { $0.value == 0x2028 })
        #expect(try JSONDecoder().decode(Manifest.Document.self, from: data).entries == [entry])
    }

    /// `JSONEncoder` gets the same keys (in whatever order it writes them), nulls included.
    @Test func encodableGivesTheSameKeys() throws {
        let entry = ManifestEntry(index: 3, input: "https://x.test/a.jpg", line: 4, status: .rejected, errorCode: 105)
        let object = try jsonObject(entry)
        #expect(Set(object.keys) == Self.allKeys)
        #expect(object["error_code"] as? Int == 105 && object["index"] as? Int == 3)
        #expect(ManifestEntry.keys == Self.keyOrder)
    }

    @Test func finalizeOfAnEmptyOrMissingJournalIsAnEmptyDocument() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(try Manifest.finalize(dir: dir.url).count == 0)
        let document = try JSONDecoder().decode(
            Manifest.Document.self, from: Data(contentsOf: dir.url.appendingPathComponent("manifest.json")))
        #expect(document.entries.isEmpty && document.schemaVersion == Manifest.schemaVersion)
        let text = try String(contentsOf: dir.url.appendingPathComponent("manifest.json"), encoding: .utf8)
        #expect(text.hasSuffix("\"entries\": []\n}\n"), "\(text)")
        // A manifest from before the schema (`version`, keys sorted) still reads.
        let old =
            #"{"created":"2023-11-14T22:13:20Z","entries":[{"input":"https://x.test/a.jpg","line":1,"status":"failed"}],"version":1}"#
        let legacy = try JSONDecoder().decode(Manifest.Document.self, from: Data(old.utf8))
        #expect(legacy.schemaVersion == 1 && legacy.entries.first?.index == 0)
    }

    @Test func concurrentAppendsNeverInterleave() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try ManifestJournal(directory: dir.url)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let entry = ManifestEntry(
                        input: "https://x.test/\(index).jpg", line: index + 1, status: .failed,
                        reason: String(repeating: "r", count: index * 7))
                    _ = try? journal.append(entry)
                }
            }
        }
        try journal.close()
        let read = try Manifest.readJournal(dir: dir.url)
        #expect(read.warnings.isEmpty)
        #expect(Set(read.entries.map(\.line)) == Set(1...200))
    }

    @Test func resumeSkipsTruncatedLineAndChecksFiles() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try FileManager.default.createDirectory(
            at: dir.url.appendingPathComponent("Images"), withIntermediateDirectories: true)
        let good = Data("jpeg bytes".utf8)
        try AtomicWriter.write(good, to: dir.url.appendingPathComponent("Images/A-good.jpg"))
        try AtomicWriter.write(Data("short".utf8), to: dir.url.appendingPathComponent("Images/B-changed.jpg"))

        let journal = try ManifestJournal(directory: dir.url)
        try journal.append(
            ManifestEntry(
                input: "https://x.test/good.jpg", line: 1, status: .prepared,
                file: "Images/A-good.jpg", bytes: good.count, sha256: SHA256.hexDigest(of: good)))
        try journal.append(
            ManifestEntry(
                input: "https://x.test/changed.jpg", line: 2, status: .prepared,
                file: "Images/B-changed.jpg", bytes: 999))
        try journal.append(
            ManifestEntry(
                input: "https://x.test/gone.jpg", line: 3, status: .prepared,
                file: "Images/C-gone.jpg", bytes: 1))
        try journal.append(
            ManifestEntry(
                input: "https://x.test/escape.jpg", line: 4, status: .prepared,
                file: "../outside.jpg", bytes: 1))
        try journal.append(ManifestEntry(input: "https://x.test/bad.jpg", line: 5, status: .failed, reason: "404"))
        try journal.close()
        // A crash in the middle of the next line.
        let handle = try FileHandle(forWritingTo: dir.url.appendingPathComponent("manifest.jsonl"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"input":"https://x.test/half.jpg","line":6,"sta"#.utf8))
        try handle.close()

        let state = try Manifest.load(dir: dir.url, verify: .sizeAndHash)
        #expect(Set(state.prepared.keys) == ["https://x.test/good.jpg"])
        #expect(state.isPrepared("https://x.test/good.jpg"))
        #expect(state.referencedFiles == ["Images/A-good.jpg"])
        #expect(!state.isPrepared("https://x.test/bad.jpg"))
        #expect(state.entries.count == 4, "the line naming ../outside.jpg is not an entry")
        #expect(state.warnings.contains { $0.contains("manifest.jsonl:6: truncated last line") })
        #expect(state.warnings.contains { $0.contains("changed.jpg") && $0.contains("expected 999") })
        #expect(state.warnings.contains { $0.contains("gone.jpg") && $0.contains("missing") })
        #expect(state.warnings.contains { $0.contains("manifest.jsonl:4: file path ../outside.jpg is not trusted") })

        // Reopening ends the broken line, so new entries start cleanly.
        let again = try ManifestJournal(directory: dir.url)
        try again.append(
            ManifestEntry(
                input: "https://x.test/half.jpg", line: 6, status: .prepared,
                file: "Images/A-good.jpg", bytes: good.count))
        try again.close()
        let reread = try Manifest.readJournal(dir: dir.url)
        #expect(reread.entries.count == 5)
        #expect(reread.warnings.count == 2)
        #expect(reread.warnings.contains { $0.contains(":4: file path ../outside.jpg is not trusted") })
        #expect(reread.warnings.contains { $0.contains(":6: not a manifest entry") })
    }

    @Test func hashMismatchIsCaughtOnlyWhenAsked() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try FileManager.default.createDirectory(
            at: dir.url.appendingPathComponent("Images"), withIntermediateDirectories: true)
        try AtomicWriter.write(Data("abcd".utf8), to: dir.url.appendingPathComponent("Images/x.jpg"))
        let journal = try ManifestJournal(directory: dir.url)
        try journal.append(
            ManifestEntry(
                input: "https://x.test/x.jpg", line: 1, status: .prepared, file: "Images/x.jpg",
                bytes: 4, sha256: SHA256.hexDigest(of: Data("wxyz".utf8))))
        try journal.close()
        #expect(try Manifest.load(dir: dir.url, verify: .size).isPrepared("https://x.test/x.jpg"))
        #expect(try !Manifest.load(dir: dir.url, verify: .sizeAndHash).isPrepared("https://x.test/x.jpg"))
    }

    @Test func missingJournalIsEmpty() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let state = try Manifest.load(dir: dir.url)
        #expect(state.prepared.isEmpty && state.entries.isEmpty && state.warnings.isEmpty)
    }
}
