import Foundation
import TestSupport
import Testing

/// `--timeout` is the whole budget of an attempt: no hidden cutoff is shorter.
@Suite(.serialized) struct TimeoutCLITests {
    /// An origin that takes 12 s to its first byte, under --timeout 40: prepared (on 1709ac3 the
    /// library's 10 s low-speed cutoff ended it after 10.2 s with "Operation too slow").
    @Test func anOriginSlowToItsFirstByteIsWaitedForUntilTheTimeout() throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        let gate = origin.hold("/late.jpg", .bytes(jpeg, contentType: "image/jpeg"))
        let opener = Thread {
            _ = gate.waitBlocking { $0.waiting == 1 }
            Thread.sleep(forTimeInterval: 12)
            gate.open()
        }
        opener.start()
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
