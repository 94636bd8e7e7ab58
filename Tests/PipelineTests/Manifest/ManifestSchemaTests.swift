import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// `docs/manifest.schema.json` against what a real run writes, checked by hand (`SchemaCheck`).
@Suite("Manifest: the documented schema", .ownThread, .tags(.slow), .notInFastTier)
struct ManifestSchemaTests {
    static let schemaFile = Corpus.packageRoot.appendingPathComponent("docs/manifest.schema.json")

    func schema() throws -> (check: SchemaCheck, json: [String: JSONValue]) {
        let root = try JSONValue.parse(Data(contentsOf: Self.schemaFile))
        guard case .object(let json) = root else { throw SchemaFileError() }
        return (SchemaCheck(root: root), json)
    }

    struct SchemaFileError: Error {}

    /// The schema lists every key the code writes, in the code's order, as required.
    @Test func schemaRequiresEveryKeyInTheDeclaredOrder() throws {
        let (_, json) = try schema()
        #expect(json["$schema"] == .string("https://json-schema.org/draft/2020-12/schema"))
        #expect(json["required"] == .array(["schema_version", "created", "entries"].map(JSONValue.string)))
        guard case .object(let defs)? = json["$defs"], case .object(let entry)? = defs["entry"],
            case .object(let properties)? = entry["properties"]
        else {
            Issue.record("no $defs.entry.properties in the schema")
            return
        }
        #expect(entry["required"] == .array(ManifestEntry.keys.map(JSONValue.string)))
        #expect(Set(properties.keys) == Set(ManifestEntry.keys))
        #expect(entry["additionalProperties"] == .bool(false))
    }

    /// A run with one item of each kind: every line of the journal is an `entry`, and
    /// `manifest.json` is a manifest.
    @Test func aRealManifestMatchesTheSchema() async throws {
        let (check, _) = try schema()
        let f = try PrepareFixture()
        for name in [
            "small-320x240.jpg", "animated-120x90.gif", "animated-120x90.webp", "tone-1s.wav", "truncated.jpg",
        ] {
            f.server.route("/\(name)") { _ in .file(Corpus.testImages.appendingPathComponent(name), contentType: nil) }
        }
        f.server.route("/not-media") { _ in .bytes(Data("plain text, not media\n".utf8), contentType: "text/plain") }
        let lines =
            ["small-320x240.jpg", "animated-120x90.gif", "animated-120x90.webp", "tone-1s.wav", "truncated.jpg"]
            .map { f.server.url("/\($0)") } + [
                f.server.url("/not-media"), f.server.url("/status/404"), "htp:/not-a-url",
                #"{"url": "\#(f.server.url("/small-320x240.jpg"))", "id": "line\u2028separator"}"#,
            ]
        var options = try f.options(lines)
        options.limits.thumbnailSize = 64
        let (summary, _, entries) = try await f.run(options)
        #expect(summary.prepared == 5 && summary.rejected == 2 && summary.failed == 2, "\(summary)")
        #expect(entries.map(\.index) == Array(0..<9))

        let manifest = try Data(contentsOf: f.container.appendingPathComponent(Manifest.fileName))
        #expect(check.problems(try JSONValue.parse(manifest)) == [])
        let journal = try String(
            contentsOf: f.container.appendingPathComponent(ManifestJournal.fileName), encoding: .utf8)
        let journalLines = journal.split(separator: "\n")
        #expect(journalLines.count == 9)
        for line in journalLines {
            #expect(check.problems(try JSONValue.parse(Data(line.utf8)), definition: "entry") == [], "\(line)")
        }
    }

    /// The check can fail: a missing key, a wrong type, an unknown key, a bad status and a bad
    /// version are each caught.
    @Test func theCheckCatchesWhatBreaksTheSchema() throws {
        let (check, _) = try schema()
        let entry = ManifestEntry(index: 0, input: "https://x.test/a.jpg", line: 1, status: .failed, reason: "404")
        guard case .object(var good) = try JSONValue.parse(entry.jsonLine()) else {
            Issue.record("an entry is not an object")
            return
        }
        #expect(check.problems(.object(good), definition: "entry") == [])
        var broken = good
        broken["error_code"] = nil
        broken["line"] = .string("1")
        broken["extra"] = .integer(1)
        broken["status"] = .string("done")
        let problems = check.problems(.object(broken), definition: "entry")
        #expect(problems.contains("$: missing error_code"), "\(problems)")
        #expect(problems.contains { $0.hasPrefix("$.line:") }, "\(problems)")
        #expect(problems.contains("$: unexpected key extra"), "\(problems)")
        #expect(problems.contains { $0.hasPrefix("$.status:") }, "\(problems)")
        #expect(problems.count == 4, "\(problems)")

        good["timings"] = .object(["download_ms": .integer(-1), "process_ms": .integer(0), "write_ms": .integer(0)])
        #expect(check.problems(.object(good), definition: "entry") == ["$.timings.download_ms: -1 is under 0"])
        let document = JSONValue.object([
            "schema_version": .integer(5), "created": .string("yesterday"), "entries": .array([]),
        ])
        #expect(check.problems(document).count == 2)
    }
}
