import Foundation
import SystemSupport

/// One of `count` deterministic slices of an input list: `prepare --shard K/N` takes the items
/// whose key hashes to `index`.
///
///     let shard = try Shard(parsing: "1/4")                 // index 1 of 4
///     shard.owns(key: "https://cdn.example.com/a.jpg")      // true for about a quarter of keys
///     shard.journalName                                     // "manifest.1-of-4.jsonl"
///
/// The key is an item's URL as the input reader normalises it (the same key dedupe uses), so
/// every item naming one URL lands in the same shard and is still downloaded once. The hash is
/// fixed and documented, independent of process, platform and run:
///
///     shard(key) = UInt64(big-endian, first 8 bytes of SHA-256(UTF-8 of key)) mod N
///
/// (`python3 -c 'import hashlib;print(int.from_bytes(hashlib.sha256(k.encode()).digest()[:8],"big")%N)'`
/// gives the same number.) Input problems (an unreadable INPUT, a bad line) have no URL: shard 0
/// records them, so the merged manifest holds each exactly once.
package struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 0 ≤ index < count.
    package let index: Int
    package let count: Int

    package init(index: Int, count: Int) throws(ShardError) {
        guard count >= 1, count <= Self.maxCount else { throw .badCount(count) }
        guard index >= 0, index < count else { throw .badIndex(index, count: count) }
        self.index = index
        self.count = count
    }

    /// The largest shard count accepted.
    package static let maxCount = 1_000_000

    /// "K/N", as `--shard` and the file names show it.
    package var description: String { "\(index)/\(count)" }

    /// True when the item with `key` belongs to this shard.
    package func owns(key: String) -> Bool { Self.assignment(of: key, count: count) == index }

    /// The shard of `key` among `count` shards: the first 8 bytes of SHA-256 of its UTF-8 form,
    /// read big-endian, modulo `count`.
    package static func assignment(of key: String, count: Int) -> Int {
        let digest = SHA256.hash(Array(key.utf8))
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return Int(value % UInt64(count))
    }

    /// `K-of-N`, the tag in this shard's file names: its container slice (`Container.Access.slice`:
    /// its lock `.lock.K-of-N` and spool folder `.spool.K-of-N`) and its journal.
    package var tag: String { "\(index)-of-\(count)" }
    /// `manifest.K-of-N.jsonl`: this shard's journal in the shared container.
    package var journalName: String { "manifest.\(tag).jsonl" }
    /// `manifest.K-of-N.done`: written (atomically) only after the journal is complete and
    /// synced, and removed before a `--resume` appends again, so a shard killed mid-run never
    /// looks complete.
    package var doneName: String { "manifest.\(tag).done" }
}

/// Why a `--shard` value, or the environment `--shard auto` reads, gives no shard.
package enum ShardError: Error, Sendable, Hashable, CustomStringConvertible {
    case badCount(Int)
    case badIndex(Int, count: Int)
    /// Not `K/N`, `auto` or `auto/N`.
    case unparsable(String)
    /// `auto`: no engine's variables were found. `looked` lists the variables tried.
    case noEnvironment(looked: [String])
    /// `auto`: an index was found but no count (Kubernetes and AWS Batch set none).
    case countMissing(variable: String, value: String)
    /// `auto`: a variable is there but not a number, or out of range.
    case badVariable(name: String, value: String, reason: String)

    package var description: String {
        switch self {
        case .badCount(let n): "shard count \(n) is out of range: N must be 1 to \(Shard.maxCount)"
        case .badIndex(let k, let n): "shard index \(k) is out of range for \(n) shards: K must be 0 to \(n - 1)"
        case .unparsable(let text):
            "'\(text)' is not a shard: give K/N (0 ≤ K < N, e.g. 2/8), auto (index and count from the batch engine's environment) or auto/N"
        case .noEnvironment(let looked):
            "no array-job index in the environment (looked for \(looked.joined(separator: ", "))): run under a job array, or give K/N"
        case .countMissing(let variable, let value):
            "found \(variable)=\(value) but no shard count (this engine sets none): give it as auto/N, N the array size"
        case .badVariable(let name, let value, let reason): "\(name)=\(value) \(reason)"
        }
    }
}

extension Shard {
    /// Parses `K/N`, `auto` or `auto/N`; `auto` reads `environment` (see `fromEnvironment`).
    package init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ShardError)
    {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.first == "auto", parts.count <= 2 {
            var count: Int?
            if parts.count == 2 {
                guard let n = Int(parts[1]) else { throw .unparsable(text) }
                count = n
            }
            self = try Self.fromEnvironment(environment, count: count)
            return
        }
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else { throw .unparsable(text) }
        try self.init(index: k, count: n)
    }

    /// The variables `auto` reads, engine by engine: index, count (nil: the engine sets none).
    package static let engines: [(engine: String, index: String, count: String?)] = [
        ("Slurm", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT"),
        ("Kubernetes", "JOB_COMPLETION_INDEX", nil),
        ("AWS Batch", "AWS_BATCH_JOB_ARRAY_INDEX", nil),
        ("Cloud Run", "CLOUD_RUN_TASK_INDEX", "CLOUD_RUN_TASK_COUNT"),
    ]

    /// The shard an array job's environment names. Slurm: `SLURM_ARRAY_TASK_ID` minus
    /// `SLURM_ARRAY_TASK_MIN` (arrays may start anywhere, `--array=1-4`), of
    /// `SLURM_ARRAY_TASK_COUNT`; Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX`; AWS Batch:
    /// `AWS_BATCH_JOB_ARRAY_INDEX`; Cloud Run: `CLOUD_RUN_TASK_INDEX` of `CLOUD_RUN_TASK_COUNT`.
    /// `count` (from `auto/N`) is required where the engine sets no count, and wins where it does.
    package static func fromEnvironment(_ environment: [String: String], count given: Int?) throws(ShardError)
        -> Shard
    {
        for engine in engines {
            guard let raw = environment[engine.index] else { continue }
            guard var index = Int(raw.trimmingCharacters(in: .whitespaces)) else {
                throw .badVariable(name: engine.index, value: raw, reason: "is not a whole number")
            }
            if engine.index == "SLURM_ARRAY_TASK_ID", let minimum = environment["SLURM_ARRAY_TASK_MIN"] {
                guard let offset = Int(minimum) else {
                    throw .badVariable(name: "SLURM_ARRAY_TASK_MIN", value: minimum, reason: "is not a whole number")
                }
                index -= offset
            }
            var count = given
            if count == nil, let name = engine.count, let raw = environment[name] {
                guard let n = Int(raw.trimmingCharacters(in: .whitespaces)) else {
                    throw .badVariable(name: name, value: raw, reason: "is not a whole number")
                }
                count = n
            }
            guard let count else { throw .countMissing(variable: engine.index, value: raw) }
            return try Shard(index: index, count: count)
        }
        throw .noEnvironment(looked: engines.map(\.index))
    }
}
