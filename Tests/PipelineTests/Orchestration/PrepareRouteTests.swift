import Fetch
import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// The real `BatchRunner` against the loopback server: each route gets the expected manifest entry.
@Suite("prepare: one manifest entry per server behaviour", .ownThread, .tags(.slow), .notInFastTier)
struct PrepareRouteTests {
    @Test func eachRouteGetsTheExpectedEntry() async throws {
        let f = try PrepareFixture()
        let s = f.server
        f.serveJPEG("/ok.jpg")
        f.serveJPEG("/wrong-type.jpg", contentType: "image/png")
        f.serveJPEG("/noext", contentType: nil)
        f.serveJPEG("/attach", extraHeaders: [("Content-Disposition", "attachment; filename=\"../../etc/passwd\"")])
        s.route("/flaky.jpg") { request in
            request.hit <= 1
                ? .text("try again\n", status: 500) : .bytes(PrepareFixture.jpeg, contentType: "image/jpeg")
        }
        s.route("/slow-down.jpg") { request in
            guard request.hit > 1 else {
                var response = TestHTTPServer.Response.text("slow down\n", status: 429)
                response.headers.append(("Retry-After", "1"))
                return response
            }
            return .bytes(PrepareFixture.jpeg, contentType: "image/jpeg")
        }
        let urls = [
            "ok": s.url("/ok.jpg"),
            "wrongType": s.url("/wrong-type.jpg"),
            "noext": s.url("/noext"),
            "disposition": s.url("/attach"),
            "redirectsUnder": s.url("/redirect/3/ok.jpg"),
            "redirectsOver": s.url("/redirect/7/ok.jpg"),
            "endless": s.url("/endless"),
            "lyingShort": s.url("/lying/short?declared=100&actual=5000"),
            "lyingLong": s.url("/lying/long?declared=50000&actual=100"),
            "reset": s.url("/reset?bytes=1000"),
            "notFound": s.url("/status/404"),
            "flaky": s.url("/flaky.jpg"),
            "retryAfter": s.url("/slow-down.jpg"),
        ]
        // The fixture's limits are long: a timeout is `aDownloadPastTheDeadlineIsAFailedEntry`.
        let options = try f.options(urls.values.sorted())
        let (summary, entries, _) = try await f.run(options)
        func entry(_ key: String) throws -> ManifestEntry { try #require(entries[urls[key]!], "no entry for \(key)") }

        let ok = try entry("ok")
        #expect(ok.status == .prepared)
        #expect(ok.format == "jpeg" && ok.uti == "public.jpeg" && ok.category == "image")
        #expect(ok.bytes == PrepareFixture.jpeg.count && ok.width == 320 && ok.height == 240)
        #expect(ok.sha256 == SHA256.hexDigest(of: PrepareFixture.jpeg))
        #expect(ok.file?.hasPrefix("Images/\(ok.identifier!)-ok") == true && ok.file?.hasSuffix(".jpg") == true)
        let written = try Data(contentsOf: f.container.appendingPathComponent(try #require(ok.file)))
        #expect(written == PrepareFixture.jpeg)

        let wrongType = try entry("wrongType")
        #expect(wrongType.status == .prepared)
        #expect(wrongType.warnings.contains { $0.contains("Content-Type") && $0.contains("JPEG") })

        let noext = try entry("noext")
        #expect(noext.status == .prepared)
        #expect(noext.file?.hasSuffix("-noext.jpg") == true)

        let disposition = try entry("disposition")
        #expect(disposition.status == .prepared)
        let dispositionFile = try #require(disposition.file)
        #expect(dispositionFile.hasPrefix("Images/") && !dispositionFile.contains(".."))
        #expect(dispositionFile.split(separator: "/").count == 2 && dispositionFile.hasSuffix("passwd.jpg"))
        #expect(FileManager.default.fileExists(atPath: f.container.appendingPathComponent(dispositionFile).path))

        #expect(try entry("redirectsUnder").status == .prepared)
        let over = try entry("redirectsOver")
        #expect(over.status == .failed && over.reason?.contains("too many redirects") == true, "\(over.reason ?? "")")

        let endless = try entry("endless")
        // Endless text: stopped at the cap, and refused for what its first bytes are.
        #expect(endless.status == .rejected && endless.refusal == "not-media" && endless.errorCode == 101, "\(endless)")
        for key in ["lyingShort", "lyingLong"] {
            let lying = try entry(key)
            #expect(lying.status != .prepared, "\(key): \(lying.reason ?? "")")
            #expect(lying.file == nil)
        }
        let reset = try entry("reset")
        #expect(reset.status == .failed && reset.file == nil)

        let notFound = try entry("notFound")
        #expect(notFound.status == .failed && notFound.reason?.contains("HTTP 404") == true)

        let flaky = try entry("flaky")
        #expect(flaky.status == .prepared)
        #expect(flaky.warnings.contains("downloaded after 2 attempts"))
        #expect(s.hits("/flaky.jpg") == 2)
        #expect(try entry("retryAfter").status == .prepared)
        #expect(s.hits("/slow-down.jpg") == 2)

        #expect(summary.prepared == 7 && summary.total == urls.count)
        // The container holds exactly the prepared files, and no temporaries.
        let files = Set(f.dir.names(in: "out/Images").map { "Images/" + $0 })
        #expect(files == Set(entries.values.compactMap(\.file)))
    }

    /// The response stops after 1000 bytes and is held until the run has finished: only the
    /// deadline (the one short limit; the run has no other item to share it) can end the
    /// download, and the item is a failed entry.
    @Test func aDownloadPastTheDeadlineIsAFailedEntry() async throws {
        let f = try PrepareFixture()
        let gate = f.server.hold(
            "/held.jpg", sendingFirst: 1000, .bytes(PrepareFixture.jpeg, contentType: "image/jpeg"))
        let held = f.server.url("/held.jpg")
        var options = try f.options([held])
        options.fetch.deadline = .seconds(2)
        let (summary, entries, _) = try await f.run(options)
        let arrived = await gate.wait { $0.arrived >= 1 }
        gate.open()

        let entry = try #require(entries[held])
        #expect(entry.status == .failed && entry.reason?.contains("timed out") == true, "\(entry.reason ?? "")")
        #expect(entry.reason?.lowercased().contains("slow") == false, "\(entry.reason ?? "")")
        #expect(entry.file == nil)
        #expect(arrived?.passed == 0, "the route was still held when the run ended")
        #expect(f.server.hits("/held.jpg") == 1, "a timeout is not retried")
        #expect(summary.failed == 1 && summary.total == 1)
        #expect(f.dir.names(in: "out/Images").isEmpty)
    }

    @Test func identicalURLsAreDownloadedOnceAndShareTheFile() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/same.jpg")
        let url = f.server.url("/same.jpg")
        let (summary, _, entries) = try await f.run(try f.options([url, f.server.url("/status/404"), url, url]))
        #expect(f.server.hits("/same.jpg") == 1)
        let same = entries.filter { $0.input == url }
        #expect(same.count == 3 && same.allSatisfy { $0.status == .prepared })
        #expect(Set(same.map(\.file)).count == 1 && Set(same.map(\.line)) == [1, 3, 4])
        #expect(f.dir.names(in: "out/Images").count == 1)
        #expect(summary.prepared == 3 && summary.failed == 1)
    }

    @Test func stableNamesGiveIdenticalNamesOnReruns() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        f.serveJPEG("/b", contentType: nil)
        let urls = [f.server.url("/a.jpg"), f.server.url("/b")]
        var names: [[String]] = []
        for run in 0..<2 {
            var options = try f.options(urls, container: f.dir.url.appendingPathComponent("run\(run)"))
            options.stableNames = true
            options.limits.thumbnailSize = 64
            _ = try await f.run(options)
            names.append(f.dir.names(in: "run\(run)/Images") + f.dir.names(in: "run\(run)/Thumbnails"))
        }
        #expect(names[0].count == 4)
        #expect(names[0] == names[1])
    }

    @Test func strictMakesATypeMismatchARejection() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/cat.png", contentType: "image/png")
        var options = try f.options([f.server.url("/cat.png")])
        options.policy.strict = true
        let (summary, entries, _) = try await f.run(options)
        let entry = try #require(entries.values.first)
        #expect(entry.status == .rejected && entry.reason?.contains("type mismatch") == true)
        #expect(summary.rejected == 1)
    }

    @Test func localFilesRunThroughTheEngine() async throws {
        let f = try PrepareFixture()
        var options = PrepareOptions(
            container: f.container,
            inputs: [
                Corpus.testImages.appendingPathComponent("lossy-320x240.webp").path,
                Corpus.testImages.appendingPathComponent("truncated.jpg").path,
            ])
        options.cpuThreads = 2
        let (_, _, entries) = try await f.run(options)
        let webp = try #require(entries.first { $0.input.hasSuffix("lossy-320x240.webp") })
        #expect(webp.status == .prepared && webp.format == "jpeg" && webp.file?.hasSuffix("lossy-320x240.jpg") == true)
        let truncated = try #require(entries.first { $0.input.hasSuffix("truncated.jpg") })
        #expect(truncated.status == .rejected)
    }
}

/// Concurrency limits, counted at the server (not timed).
@Suite("prepare: concurrency limits", .ownThread, .tags(.slow), .notInFastTier)
struct PrepareLimitTests {
    /// Every download is held at the server, and the test lets them through one at a time, each
    /// only once the pipeline has as many held as it may (`min(perHost, inFlight)`, fewer at the
    /// tail): the limit is reached at every step, so the peak is exactly the limit, and a
    /// pipeline that went past it would be caught holding one more.
    @Test(arguments: [(6, 16), (2, 16), (3, 2)])
    func perHostAndGlobalLimitsHold(perHost: Int, inFlight: Int) async throws {
        let f = try PrepareFixture()
        let count = 24, limit = min(perHost, inFlight)
        let gate = TestHTTPServer.Gate()
        let urls = (0..<count).map { index in
            let path = "/held/\(index).jpg"
            f.server.hold(path, gate: gate, .bytes(PrepareFixture.jpeg, contentType: "image/jpeg"))
            return f.server.url(path)
        }
        var options = try f.options(urls)
        options.perHost = perHost
        options.maxInFlight = inFlight
        async let run = BatchRunner(options: options).run()

        var stalled: (step: Int, state: TestHTTPServer.Gate.State)?
        for released in 0..<count {
            let expected = min(limit, count - released)
            guard let state = await gate.wait(until: { $0.waiting >= expected }) else {
                stalled = (released, gate.current)
                break
            }
            #expect(state.waiting <= limit, "step \(released): \(state.waiting) held at once")
            gate.release()
        }
        gate.open()
        let summary = try await run
        #expect(stalled == nil, "the pipeline stopped short of its limit: \(String(describing: stalled))")
        #expect(summary.prepared == count)
        #expect(gate.current.arrived == count)
        #expect(gate.current.peakWaiting == limit)
        #expect(f.dir.names(in: "out/Images").count == count)
    }

    @Test func aContainerThatCannotBeCreatedIsAFatalFailure() async throws {
        let f = try PrepareFixture()
        let blocker = try f.dir.file("blocker", "a file where the container's parent should be")
        let options = try f.options([f.server.url("/ok")], container: blocker.appendingPathComponent("out"))
        await #expect(throws: PrepareFailure.self) { _ = try await BatchRunner(options: options).run() }
    }
}
