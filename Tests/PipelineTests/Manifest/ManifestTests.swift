import Foundation
import Testing

@testable import Pipeline

@Suite("Manifest: entries, journal, finalize, resume")
struct ManifestTests {
    static let allKeys: Set<String> = [
        "input", "line", "id", "status", "reason", "file", "identifier", "uti", "format", "category",
        "bytes", "width", "height", "frames", "sha256", "transform", "thumbnail", "warnings", "timings",
    ]

    func jsonObject(_ entry: ManifestEntry) throws -> [String: Any] {
        let data = try JSONEncoder().encode(entry)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func failedEntryHasEveryKeyWithNulls() throws {
        let entry = ManifestEntry(input: "https://x.test/a.jpg", line: 3, status: .failed, reason: "HTTP 404")
        let object = try jsonObject(entry)
        #expect(Set(object.keys) == Self.allKeys)
        for key in [
            "id", "file", "identifier", "uti", "format", "category", "bytes", "width", "height",
            "frames", "sha256", "transform", "thumbnail",
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
            input: "https://x.test/a.webp", line: 7, id: "42", status: .prepared, file: "Images/ABC-a.jpg",
            identifier: "ABC", uti: "public.jpeg", format: "jpeg", category: "image", bytes: 1234, width: 640,
            height: 480, frames: 1, sha256: String(repeating: "0", count: 64),
            transform: ["decoded WebP", "encoded JPEG q85"],
            thumbnail: "Thumbnails/ABC-a.jpg", warnings: ["Content-Type said image/png"],
            timings: .init(downloadMs: 10, processMs: 20, writeMs: 3))
        let object = try jsonObject(entry)
        #expect(Set(object.keys) == Self.allKeys)
        #expect(object["file"] as? String == "Images/ABC-a.jpg")
        #expect((object["timings"] as? [String: Any])?["process_ms"] as? Int == 20)
        let decoded = try JSONDecoder().decode(ManifestEntry.self, from: try JSONEncoder().encode(entry))
        #expect(decoded == entry)
    }

    @Test func journalFinalizeDedupesLastWins() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try ManifestJournal(directory: dir.url, syncEvery: 2)
        try journal.append(ManifestEntry(input: "https://x.test/a.jpg", line: 1, status: .failed, reason: "timeout"))
        try journal.append(ManifestEntry(input: "https://x.test/b.jpg", line: 2, status: .rejected, reason: "SVG"))
        try journal.append(
            ManifestEntry(input: "https://x.test/a.jpg", line: 1, status: .prepared, file: "Images/A-a.jpg"))
        try journal.close()
        try journal.close()  // idempotent

        let lines = try String(contentsOf: dir.url.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { !$0.contains("\\/") })  // slashes not escaped

        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let finalized = try Manifest.finalize(dir: dir.url, now: date)
        #expect(finalized.count == 2 && finalized.statuses == [.prepared: 1, .rejected: 1])
        let written = try JSONDecoder().decode(
            Manifest.Document.self, from: Data(contentsOf: dir.url.appendingPathComponent("manifest.json")))
        #expect(written.entries.map(\.status) == [.prepared, .rejected])
        #expect(written.entries == (try Manifest.readJournal(dir: dir.url)).entries)
        // Streamed, yet byte for byte what encoding the whole document gives.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        #expect(
            try Data(contentsOf: dir.url.appendingPathComponent("manifest.json"))
                == (try encoder.encode(written)) + Data([0x0A]))
        #expect(dir.names().filter { $0.contains(".tmp-") }.isEmpty)

        let data = try Data(contentsOf: dir.url.appendingPathComponent("manifest.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["version", "created", "entries"])
        #expect(object["version"] as? Int == 1)
        #expect(object["created"] as? String == "2023-11-14T22:13:20Z")
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { Set($0.keys) == Self.allKeys })
    }

    @Test func finalizeOfAnEmptyOrMissingJournalIsAnEmptyDocument() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(try Manifest.finalize(dir: dir.url).count == 0)
        let document = try JSONDecoder().decode(
            Manifest.Document.self, from: Data(contentsOf: dir.url.appendingPathComponent("manifest.json")))
        #expect(document.entries.isEmpty && document.version == 1)
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
        #expect(state.entries.count == 5)
        #expect(state.warnings.contains { $0.contains("manifest.jsonl:6: truncated last line") })
        #expect(state.warnings.contains { $0.contains("changed.jpg") && $0.contains("expected 999") })
        #expect(state.warnings.contains { $0.contains("gone.jpg") && $0.contains("missing") })
        #expect(state.warnings.contains { $0.contains("leaves the container") })

        // Reopening ends the broken line, so new entries start cleanly.
        let again = try ManifestJournal(directory: dir.url)
        try again.append(
            ManifestEntry(
                input: "https://x.test/half.jpg", line: 6, status: .prepared,
                file: "Images/A-good.jpg", bytes: good.count))
        try again.close()
        let reread = try Manifest.readJournal(dir: dir.url)
        #expect(reread.entries.count == 6)
        #expect(reread.warnings.count == 1)
        #expect(reread.warnings.first?.contains(":6: not a manifest entry") == true)
    }

    @Test func hashMismatchIsCaughtOnlyWhenAsked() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try AtomicWriter.write(Data("abcd".utf8), to: dir.url.appendingPathComponent("x.jpg"))
        let journal = try ManifestJournal(directory: dir.url)
        try journal.append(
            ManifestEntry(
                input: "https://x.test/x.jpg", line: 1, status: .prepared, file: "x.jpg",
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
