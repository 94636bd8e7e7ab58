import Foundation
import TestSupport
import Testing

/// A smoke run of `pushattach bench`: figures are produced. Never a timing assertion.
@Suite("pushattach bench", .tags(.slow), .notInFastTier)
struct BenchCLITests {
    @Test func smokeRunProducesFigures() throws {
        let result = try ProcessRunner.run(
            "pushattach",
            [
                "bench", "--rounds", "1", "--threads", "1", "--folder", Corpus.testImages.path, "--workload", "w1",
                "--json",
            ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let results = try #require(report["results"] as? [[String: Any]])
        let w1 = try #require(results.first { $0["workload"] as? String == "w1" })
        #expect((w1["images"] as? Int ?? 0) > 0)
        #expect((w1["images_per_s"] as? Double ?? 0) > 0)
        #expect((w1["p50_ms"] as? Double ?? 0) > 0)
    }

    @Test func badOptionIsAUsageError() throws {
        let result = try ProcessRunner.run("pushattach", ["bench", "--workload", "w9"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("unknown workload 'w9'"))
    }
}
