import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// The shard function and `--shard` parsing.
@Suite("shards: a fixed hash of the URL, and K/N or the array job's environment", .tags(.slow), .notInFastTier)
struct ShardTests {
    /// Expected shards computed outside this code, with Python's hashlib:
    ///
    ///     python3 -c 'import hashlib
    ///     for k in KEYS:
    ///         h = int.from_bytes(hashlib.sha256(k.encode()).digest()[:8], "big")
    ///         print(repr(k), h % 3, h % 4, h % 7, h % 1000)'
    static let pythonAssignments: [(key: String, mod3: Int, mod4: Int, mod7: Int, mod1000: Int)] = [
        ("https://cdn.example.com/a.jpg", 2, 3, 2, 703),
        ("https://cdn.example.com/b.png", 2, 3, 0, 455),
        ("https://img.example.org/c/d.webp?x=1", 2, 1, 4, 713),
        ("http://127.0.0.1:8080/img/0.jpg", 0, 3, 5, 303),
        ("https://example.com/%E2%9C%93.gif", 0, 2, 4, 666),
        ("", 1, 0, 1, 652),
    ]

    @Test func assignmentMatchesPythonHashlib() {
        for row in Self.pythonAssignments {
            #expect(Shard.assignment(of: row.key, count: 3) == row.mod3, "\(row.key)")
            #expect(Shard.assignment(of: row.key, count: 4) == row.mod4, "\(row.key)")
            #expect(Shard.assignment(of: row.key, count: 7) == row.mod7, "\(row.key)")
            #expect(Shard.assignment(of: row.key, count: 1000) == row.mod1000, "\(row.key)")
            #expect(Shard.assignment(of: row.key, count: 1) == 0)
        }
    }

    @Test func ownsExactlyOneShard() throws {
        for row in Self.pythonAssignments {
            let owners = try (0..<4).filter { try Shard(index: $0, count: 4).owns(key: row.key) }
            #expect(owners == [row.mod4])
        }
    }

    /// 100,000 URLs shaped like a campaign's: every shard within 5 % of an even share.
    @Test(arguments: [2, 3, 4, 8, 16])
    func balancedWithinFivePercent(count: Int) {
        var sizes = [Int](repeating: 0, count: count)
        for n in 0..<100_000 {
            sizes[Shard.assignment(of: "https://cdn\(n % 7).example.com/campaign/2026/\(n).jpg?v=\(n % 13)", count: count)] += 1
        }
        let even = 100_000.0 / Double(count)
        for (index, size) in sizes.enumerated() {
            #expect(abs(Double(size) - even) <= 0.05 * even, "shard \(index) of \(count) has \(size), even share \(even)")
        }
    }

    @Test func parsesKOfN() throws {
        #expect(try Shard(parsing: "0/1", environment: [:]) == Shard(index: 0, count: 1))
        #expect(try Shard(parsing: "3/4", environment: [:]) == Shard(index: 3, count: 4))
        #expect(try Shard(index: 2, count: 4).journalName == "manifest.2-of-4.jsonl")
        #expect(try Shard(index: 2, count: 4).doneName == "manifest.2-of-4.done")
        #expect(throws: ShardError.badIndex(4, count: 4)) { try Shard(parsing: "4/4", environment: [:]) }
        #expect(throws: ShardError.badCount(0)) { try Shard(parsing: "0/0", environment: [:]) }
        #expect(throws: ShardError.badIndex(-1, count: 2)) { try Shard(parsing: "-1/2", environment: [:]) }
        #expect(throws: ShardError.unparsable("2")) { try Shard(parsing: "2", environment: [:]) }
        #expect(throws: ShardError.unparsable("a/b")) { try Shard(parsing: "a/b", environment: [:]) }
    }

    @Test func autoReadsEachEngine() throws {
        let slurm = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"]
        #expect(try Shard(parsing: "auto", environment: slurm) == Shard(index: 2, count: 4))
        // `--array=1-4`: ids start at 1.
        let slurmFromOne = ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"]
        #expect(try Shard(parsing: "auto", environment: slurmFromOne) == Shard(index: 3, count: 4))
        #expect(try Shard(parsing: "auto/8", environment: ["JOB_COMPLETION_INDEX": "5"]) == Shard(index: 5, count: 8))
        #expect(
            try Shard(parsing: "auto/3", environment: ["AWS_BATCH_JOB_ARRAY_INDEX": "0"]) == Shard(index: 0, count: 3))
        let cloudRun = ["CLOUD_RUN_TASK_INDEX": "1", "CLOUD_RUN_TASK_COUNT": "2"]
        #expect(try Shard(parsing: "auto", environment: cloudRun) == Shard(index: 1, count: 2))
    }

    @Test func autoErrorsSayWhatWasLookedForAndWhatToPass() {
        do {
            _ = try Shard(parsing: "auto", environment: [:])
            Issue.record("no environment gave a shard")
        } catch {
            for name in ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX", "CLOUD_RUN_TASK_INDEX"] {
                #expect(error.description.contains(name))
            }
            #expect(error.description.contains("K/N"))
        }
        do {
            _ = try Shard(parsing: "auto", environment: ["JOB_COMPLETION_INDEX": "3"])
            Issue.record("Kubernetes gives no count")
        } catch {
            #expect(error == .countMissing(variable: "JOB_COMPLETION_INDEX", value: "3"))
            #expect(error.description.contains("auto/N"))
        }
        #expect(throws: ShardError.badIndex(5, count: 4)) {
            try Shard(parsing: "auto", environment: ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "4"])
        }
        #expect(throws: ShardError.badVariable(name: "CLOUD_RUN_TASK_INDEX", value: "x", reason: "is not a whole number")) {
            try Shard(parsing: "auto/2", environment: ["CLOUD_RUN_TASK_INDEX": "x"])
        }
    }

    @Test func journalNamesParseBack() throws {
        #expect(JournalSet.shard(ofJournal: "manifest.3-of-8.jsonl") == (try Shard(index: 3, count: 8)))
        #expect(JournalSet.shard(ofJournal: "manifest.jsonl") == nil)
        #expect(JournalSet.shard(ofJournal: "manifest.08-of-9.jsonl") == nil)
        #expect(JournalSet.shard(ofJournal: "manifest.9-of-8.jsonl") == nil)
    }
}
