import Foundation
import Synchronization
import TestSupport
import Testing

import PushAttach
import PushAttachBatch

/// `AttachmentBatch`: what `pushattach prepare` does, through the public API alone (no
/// `@testable`): a manifest, resume without downloading again, entries as they finish.
@Suite("AttachmentBatch: a batch with a manifest, from the library", .ownThread)
struct AttachmentBatchTests {
    static func configuration() -> AttachmentPreparer.Configuration {
        var configuration = AttachmentPreparer.Configuration.default
        configuration.fetch.allowPrivateNetworks = true
        configuration.fetch.maxRetries = 0
        return configuration
    }

    @Test func threeURLsThenAResumeThatDownloadsNothing() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let jpeg = try Corpus.data(Fixtures.jpeg)
        let webp = try Corpus.data(Fixtures.webp)
        server.route("/a.jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") }
        server.route("/b.webp") { _ in .bytes(webp, contentType: "image/webp") }
        let urls = [server.url("/a.jpg"), server.url("/b.webp"), server.url("/status/404")].map { URL(string: $0)! }
        let folder = TemporaryFolder()
        defer { folder.remove() }

        var entries: [BatchEntry] = []
        for try await entry in AttachmentBatch(folder: folder.url, configuration: Self.configuration()).events([
            .urls(urls)
        ]) {
            entries.append(entry)
        }
        #expect(entries.count == 3)
        let byInput = Dictionary(uniqueKeysWithValues: entries.map { ($0.input, $0) })
        let a = try #require(byInput[urls[0].absoluteString])
        #expect(a.status == .prepared && a.action != nil && a.typeHint == "public.jpeg")
        let _: Duration = a.timings.download  // the events' time type
        #expect(a.timings.download + a.timings.process + a.timings.write > .zero)
        #expect(a.fileURL.map { FileManager.default.fileExists(atPath: $0.path) } == true)
        #expect(byInput[urls[1].absoluteString]?.action == .convert)
        #expect(byInput[urls[2].absoluteString]?.status == .failed)
        let manifest = folder.url.appendingPathComponent("manifest.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as? [String: Any])
        #expect((document["entries"] as? [Any])?.count == 3)
        let hits = (server.hits("/a.jpg"), server.hits("/b.webp"))
        #expect(hits == (1, 1))

        // Again without resume: refused before anything is fetched, as the command line does.
        let refused = await #expect(throws: AttachmentError.self) {
            try await AttachmentBatch(folder: folder.url, configuration: Self.configuration()).run([.urls(urls)])
        }
        #expect(refused?.kind == .invalidArgument)
        #expect(
            refused?.reason
                == "\(folder.url.path) already holds a batch's journal (manifest.jsonl); resume it with "
                + "AttachmentBatch.Options.resume, or choose an empty container folder")
        #expect((server.hits("/a.jpg"), server.hits("/b.webp")) == (1, 1))

        var options = AttachmentBatch.Options()
        options.resume = true
        let again = try await AttachmentBatch(folder: folder.url, configuration: Self.configuration(), options: options)
            .run([.urls(urls)])
        #expect(again.skipped == 2 && again.prepared == 0 && again.failed == 1, "\(again)")
        #expect((server.hits("/a.jpg"), server.hits("/b.webp")) == (1, 1), "a prepared item was downloaded again")
        #expect(again.manifest == manifest)
    }

    /// A URL that serves an HTML page instead of a picture: rejected, and the entry keeps the
    /// first bytes that arrived (`firstBytes`, `first_bytes` in the manifest) for people to see.
    @Test func aRefusedEntryKeepsItsFirstBytes() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let page = Data("<!DOCTYPE html><html><body>Sign in to see this picture</body></html>".utf8)
        server.route("/photo") { _ in .bytes(page, contentType: "text/html") }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        var entries: [BatchEntry] = []
        for try await entry in AttachmentBatch(folder: folder.url, configuration: Self.configuration()).events([
            .urls([URL(string: server.url("/photo"))!])
        ]) {
            entries.append(entry)
        }
        let entry = try #require(entries.first)
        #expect(entry.status == .rejected && entry.errorCode == .unrecognizedType, "\(entry)")
        #expect(entry.firstBytes == Array(page.prefix(32)))
        let line = try #require(try JSONSerialization.jsonObject(with: entry.jsonLine()) as? [String: Any])
        #expect(line["first_bytes"] as? String == Array(page.prefix(32)).map { String(format: "%02x", $0) }.joined())
    }

    @Test func aShardOutsideItsCountIsAnInvalidArgument() async throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        var options = AttachmentBatch.Options()
        options.shard = (index: 3, count: 2)
        let error = await #expect(throws: AttachmentError.self) {
            try await AttachmentBatch(folder: folder.url, options: options).run([.urls([])])
        }
        #expect(error?.kind == .invalidArgument, "\(String(describing: error))")
    }

    /// What the command line builds on: events as they happen, a list file named as typed, the
    /// journal, the item count, the report and the merge, all public.
    @Test func eventsJournalReportAndMergeAreThere() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        try Fixtures.serveJPEG(on: server)
        let folder = TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let list = folder.url.appendingPathComponent("list.txt")
        try Data("\(server.url("/a.jpg"))\nnot a url\n".utf8).write(to: list)
        let inputs: [BatchInput] = [.file(atPath: list.path)]
        #expect(BatchInput.itemCount(inputs) == 2)
        #expect(BatchInput.itemCount([.urls([list]), .standardInput]) == nil)
        #expect(BatchInput.payloadConventions.contains { $0.key == "fcm_options.image" })

        let out = folder.url.appendingPathComponent("out")
        var options = AttachmentBatch.Options()
        options.writeReport = true
        let batch = AttachmentBatch(folder: out, configuration: Self.configuration(), options: options)
        #expect(batch.journal == out.appendingPathComponent("manifest.jsonl"))
        #expect(!AttachmentBatch.isInUse(out))
        let seen = Mutex<[AttachmentBatch.Event]>([])
        let summary = try await batch.run(inputs) { event in seen.withLock { $0.append(event) } }
        let events = seen.withLock { $0 }
        #expect(events.filter { if case .started = $0 { true } else { false } }.count == 1)
        let finished = events.compactMap { if case .finished(let entry) = $0 { entry } else { nil } }
        #expect(finished.count == 2 && summary.prepared == 1 && summary.failed == 1)
        let bad = try #require(finished.first { $0.status == .failed })
        #expect(bad.input == list.path && bad.line == 2, "a problem names the list and its line")
        #expect(summary.reasons.values.reduce(0, +) == 1 && summary.topReasons(1).count == 1)
        #expect(summary.report == out.appendingPathComponent("report.html") && summary.reportError == nil)

        // The entry's JSON line is the journal's, in the caller's words when it rewrote them.
        var renamed = bad
        renamed.reason = "in my words"
        let line = try #require(try JSONSerialization.jsonObject(with: renamed.jsonLine()) as? [String: Any])
        #expect(line["reason"] as? String == "in my words" && line["line"] as? Int == 2)

        let report = try BatchReport.write(folder: out)
        #expect(report.count == 2 && report.prepared == 1 && report.failed == 1)
        let merged = try AttachmentMerge.run(folder: out)
        #expect(merged.count == 2 && merged.manifest == out.appendingPathComponent("manifest.json"))
        let noManifest = #expect(throws: AttachmentError.self) { try BatchReport.write(folder: folder.url) }
        #expect(noManifest?.kind == .invalidArgument)
    }

    @Test func shardsParseFromTextAndTheEnvironment() throws {
        #expect(try AttachmentBatch.Options.shard(parsing: "2/8", environment: [:]) == (2, 8))
        let slurm = ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"]
        #expect(try AttachmentBatch.Options.shard(parsing: "auto", environment: slurm) == (3, 4))
        let error = #expect(throws: AttachmentError.self) {
            try AttachmentBatch.Options.shard(parsing: "auto", environment: [:])
        }
        #expect(error?.kind == .invalidArgument && error?.reason.contains("SLURM_ARRAY_TASK_ID") == true)
        var options = AttachmentBatch.Options()
        options.shard = (1, 3)
        let batch = AttachmentBatch(folder: URL(fileURLWithPath: "/shared/out"), options: options)
        #expect(batch.journal.lastPathComponent == "manifest.1-of-3.jsonl")
    }
}
