import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Sharded `prepare` runs over the loopback server: N shards in one container give what one
/// run gives, and a shard killed mid-run and rerun with `--resume` loses nothing.
@Suite("sharded prepare: N shards equal one run; a killed shard resumes", .tags(.slow), .notInFastTier)
struct ShardRunTests {
    /// A list with images, a URL twice (downloaded once, in one shard), 404s and a line that is
    /// not a URL.
    static func list(_ fixture: PrepareFixture) -> [String] {
        var lines: [String] = []
        for index in 0..<18 {
            let path = "/img/\(index).jpg"
            fixture.serveJPEG(path)
            lines.append(fixture.server.url(path))
        }
        lines.insert(fixture.server.url("/img/3.jpg"), at: 10)
        lines.append(fixture.server.url("/missing/a.jpg"))
        lines.insert(fixture.server.url("/missing/b.jpg"), at: 5)
        lines.append("not a url at all")
        return lines
    }

    /// Entries with what differs from run to run (timings) cleared.
    static func comparable(_ entries: [ManifestEntry]) -> [ManifestEntry] {
        entries.map { entry in
            var copy = entry
            copy.timings = ManifestEntry.Timings()
            return copy
        }
    }

    @Test(arguments: [1, 3, 4])
    func shardsTogetherEqualOneRun(count: Int) async throws {
        let fixture = try PrepareFixture()
        let lines = Self.list(fixture)
        let singleDir = fixture.dir.url.appendingPathComponent("single")
        let shardedDir = fixture.dir.url.appendingPathComponent("sharded")
        // One list file for every run: entries name it.
        var single = try fixture.options(lines, container: singleDir)
        single.stableNames = true
        let (_, _, singleEntries) = try await fixture.run(single)
        #expect(singleEntries.contains { $0.warnings.contains { $0.contains("downloaded once") } })

        var merged = 0
        var taken = 0
        for k in 0..<count {
            var options = single
            options.container = shardedDir
            options.shard = try Shard(index: k, count: count)
            let summary = try await BatchRunner(options: options).run()
            taken += summary.total
            if summary.merged { merged += 1 }
            #expect(summary.merged == (k == count - 1), "only the last shard to finish merges")
            #expect(summary.otherShards + summary.total == singleEntries.count)
        }
        #expect(merged == 1)
        #expect(taken == singleEntries.count)
        let (_, shardedEntries) = try fixture.manifest(shardedDir)
        #expect(Self.comparable(shardedEntries) == Self.comparable(singleEntries))
        #expect(fixture.attachmentFiles(shardedDir) == fixture.attachmentFiles(singleDir))
        #expect(!fixture.attachmentFiles(singleDir).isEmpty)
        for k in 0..<count {
            let shard = try Shard(index: k, count: count)
            #expect(FileManager.default.fileExists(atPath: shardedDir.appendingPathComponent(shard.doneName).path))
            #expect(!FileManager.default.fileExists(atPath: shardedDir.appendingPathComponent(Container.spoolFolderName(slice: shard.tag)).path))
        }
        // The two files' bytes differ only in `created` and the timings.
        let text = try String(contentsOf: shardedDir.appendingPathComponent(Manifest.fileName), encoding: .utf8)
        #expect(JSONKeys.topLevel(of: text) == ["schema_version", "created", "entries"])
    }

    /// A shard of another count, and an unsharded run, are refused in a container of shards.
    @Test func otherShardCountsAreRefused() async throws {
        let fixture = try PrepareFixture()
        let lines = Self.list(fixture)
        var first = try fixture.options(lines)
        first.shard = try Shard(index: 0, count: 3)
        _ = try await BatchRunner(options: first).run()
        for other in [try Shard(index: 0, count: 4), nil] {
            var options = try fixture.options(lines)
            options.shard = other
            options.resume = true
            do {
                _ = try await BatchRunner(options: options).run()
                Issue.record("ran shard \(other.map(\.description) ?? "none") in a container of 3 shards")
            } catch {
                switch error.error {
                case .mismatched(_, let reason): #expect(reason.contains("in 3 shards"))
                case .shardedContainer(_, let shards): #expect(shards == 3 && other == nil)
                default: Issue.record("unexpected \(error)")
                }
            }
        }
    }

    /// `kill -9` of the real binary while shard 1 of 2 has downloads in flight; the rerun with
    /// `--resume` finishes it; shard 0 runs and merges. Every input item is in manifest.json
    /// exactly once, prepared, its file in place.
    @Test func killedShardResumesAndLosesNothing() throws {
        let fixture = try PrepareFixture()
        let gate = TestHTTPServer.Gate()
        var lines: [String] = []
        var inShardOne = (served: 0, held: 0)
        var inShardZero = 0
        var index = 0
        while inShardOne.held < 4 || inShardOne.served < 6 || inShardZero < 6 {
            let path = "/img/\(index).jpg"
            index += 1
            let url = fixture.server.url(path)
            if Shard.assignment(of: url, count: 2) == 1 {
                if inShardOne.served < 6 {
                    fixture.serveJPEG(path)
                    inShardOne.served += 1
                } else if inShardOne.held < 4 {
                    fixture.server.hold(path, gate: gate, .bytes(PrepareFixture.jpeg, contentType: "image/jpeg"))
                    inShardOne.held += 1
                } else {
                    continue
                }
            } else {
                guard inShardZero < 6 else { continue }
                fixture.serveJPEG(path)
                inShardZero += 1
            }
            lines.append(url)
        }
        let list = try fixture.list(lines)
        let container = fixture.container.path
        func arguments(_ shard: String, resume: Bool) -> [String] {
            ["prepare", list, "--container", container, "--stable-names", "--allow-private-networks", "-q",
             "--shard", shard] + (resume ? ["--resume"] : []) + PrepareFixture.heldRunOptions(window: 3)
        }
        let (killed, _) = try fixture.runAndSignal(arguments("1/2", resume: false), gate: gate, window: 3, signal: SIGKILL)
        #expect(killed.terminationReason == .uncaughtSignal && killed.terminationStatus == SIGKILL)
        #expect(!FileManager.default.fileExists(atPath: fixture.container.appendingPathComponent("manifest.1-of-2.done").path))
        let journalBefore = try String(
            contentsOf: fixture.container.appendingPathComponent("manifest.1-of-2.jsonl"), encoding: .utf8)
        #expect(journalBefore.split(separator: "\n").count == 6, "the six served items were journaled before the kill")

        // Nothing to merge yet: shard 0 never ran, shard 1 is not complete.
        let refused = try ProcessRunner.run("pushattach", ["merge", container])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("shards 0, 1 of 2 are not complete"), "\(refused.stderr)")

        let resumed = try ProcessRunner.run("pushattach", arguments("1/2", resume: true))
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("6 already prepared (skipped)"), "\(resumed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.container.appendingPathComponent(Manifest.fileName).path))
        let last = try ProcessRunner.run("pushattach", arguments("0/2", resume: false))
        #expect(last.status == 0, "\(last.stderr)")

        let entries = try fixture.manifestEntries(fixture.container)
        #expect(entries.map(\.index) == Array(0..<lines.count), "every item exactly once, in input order")
        #expect(entries.map(\.input) == lines)
        #expect(entries.allSatisfy { $0.status == .prepared })
        let files = entries.compactMap(\.file)
        #expect(Set(files).count == lines.count)
        #expect(fixture.attachmentFiles(fixture.container) == Set(files))
        #expect(fixture.allFiles(fixture.container).filter { $0.contains(".tmp-") }.isEmpty)
    }
}
