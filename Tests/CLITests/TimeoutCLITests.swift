import Foundation
import TestSupport
import Testing

/// `--timeout` is the whole budget of an attempt: no hidden cutoff is shorter.
@Suite(.serialized, .tags(.slow), .notInFastTier) struct TimeoutCLITests {
    /// An origin that takes 12 s to its first byte, under --timeout 40: prepared (the low-speed
    /// cutoff is the whole budget unless --low-speed-time sets it; the library's own is 10 s).
    @Test func anOriginSlowToItsFirstByteIsWaitedForUntilTheTimeout() throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        origin.route("/late.jpg") { _ in
            TestHTTPServer.Response(
                status: 200, headers: [("Content-Type", "image/jpeg")], body: .firstByteAfter(jpeg, delay: .seconds(12)))
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("timeout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try ProcessRunner.run(
            "pushattach",
            ["prepare", "-", "--container", out.path, "--allow-private-networks", "--timeout", "40", "--retries", "0", "-q"],
            stdin: Data((origin.url("/late.jpg") + "\n").utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("1 prepared"), "\(result.stderr)")
    }

    /// --low-speed-time, when given, still cuts a stalled origin off before --timeout.
    @Test func aGivenLowSpeedTimeCutsAStalledOriginOff() throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let gate = origin.hold("/stalled.jpg", .bytes(Data(count: 10), contentType: "image/jpeg"))
        defer { gate.open() }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("timeout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let started = Date()
        let result = try ProcessRunner.run(
            "pushattach",
            [
                "prepare", "-", "--container", out.path, "--allow-private-networks", "--timeout", "60", "--low-speed-time",
                "2", "--retries", "0", "-q",
            ],
            stdin: Data((origin.url("/stalled.jpg") + "\n").utf8))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("1 failed"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 20)
    }
}
