import AttachmentServer
import Foundation
import PushAttach
import TestSupport
import Testing

/// `AttachmentServer` over loopback against a real origin (TestHTTPServer): the answers the
/// issue lists, the cache and the single flight.
@Suite(.serialized, .ownThread, .tags(.slow), .notInFastTier) struct ServeIntegrationTests {
    @Test func aWebPIsAnsweredAsJPEGWithItsTypeHintThenFromTheCache() throws {
        let rig = try ServeRig()
        try rig.serve("lossy-320x240.webp", as: "/cat.webp", type: "image/webp")
        let link = rig.link("/cat.webp", typeHint: "image")

        let first = try rig.get(link)
        #expect(first.status == 200)
        #expect(first.headers["content-type"] == "image/jpeg")
        #expect(first.headers["x-attachment-type-hint"] == "public.jpeg")
        #expect(first.headers["cache-control"] == "public, max-age=86400")
        #expect(first.body.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(first.headers["content-length"] == String(first.body.count))
        let etag = try #require(first.headers["etag"])
        #expect(etag == "\"\(Self.sha256Hex(first.body))\"", "a strong ETag: the body's SHA-256")

        let second = try rig.get(link)
        #expect(second.status == 200)
        #expect(second.body == first.body)
        #expect(rig.origin.hits("/cat.webp") == 1, "the second request is a cache hit")

        let notModified = try rig.get(link, headers: [("If-None-Match", "\"other\", \(etag)")])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(notModified.headers["etag"] == etag)

        let head = try rig.get(link, method: "HEAD")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers["content-length"] == String(first.body.count))
        #expect(rig.origin.hits("/cat.webp") == 1)

        let metrics = rig.server.metrics
        #expect(metrics.contains("pushattach_cache_hits_total 3"))
        #expect(metrics.contains("pushattach_origin_fetches_total 1"))
        #expect(metrics.contains("pushattach_requests_total{status=\"304\"} 1"))
    }

    /// A hit keeps its entry open with the answer made; the next hits check (one stat) that the
    /// entry on disk is still that file, so one replaced or evicted by another process is not
    /// answered again.
    @Test func aHotEntryReplacedOrEvictedOnDiskIsNotAnsweredAgain() throws {
        let rig = try ServeRig()
        try rig.serve("small-320x240.jpg", as: "/hot.jpg", type: "image/jpeg")
        let link = rig.link("/hot.jpg")
        let prepared = try rig.get(link)
        #expect(prepared.status == 200)
        #expect(rig.server.metrics.contains("pushattach_hot_answers 0"), "a miss is not kept")
        for _ in 0..<3 {
            let hit = try rig.get(link)
            #expect(hit.status == 200 && hit.body == prepared.body)
        }
        #expect(rig.server.metrics.contains("pushattach_hot_answers 1"))
        #expect(rig.server.metrics.contains("pushattach_cache_hits_kept_total 2"), "the first hit kept it, two used it")

        // Another replica stores other bytes under the key (a new file at the name).
        let entries = rig.folder.appendingPathComponent("entries")
        let shard = try #require(try FileManager.default.contentsOfDirectory(atPath: entries.path).first {
            !(try FileManager.default.contentsOfDirectory(atPath: entries.appendingPathComponent($0).path)).isEmpty
        })
        let digest = try #require(try FileManager.default.contentsOfDirectory(atPath: entries.appendingPathComponent(shard).path).first)
        let replacement = Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 500))
        let replica = try CacheStore(root: rig.folder, capacity: 1 << 30, rejectionTTL: 60)
        try replica.store(
            digest,
            record: CacheStore.Record(
                status: 200, contentType: "image/jpeg", typeHint: "public.jpeg", sha256: Self.sha256Hex(replacement),
                length: 0),
            body: replacement)
        let replaced = try rig.get(link)
        #expect(replaced.body == replacement, "the new entry, not the kept answer")
        #expect(replaced.headers["etag"] == "\"\(Self.sha256Hex(replacement))\"")
        #expect(rig.server.metrics.contains("pushattach_cache_hits_kept_total 2"), "the stale answer was not used")
        #expect(try rig.get(link).body == replacement)
        #expect(rig.server.metrics.contains("pushattach_cache_hits_kept_total 3"), "the new entry's answer is kept")

        // Evicted by another process: the next request is a miss, prepared again.
        try FileManager.default.removeItem(at: entries.appendingPathComponent(shard).appendingPathComponent(digest))
        let again = try rig.get(link)
        #expect(again.status == 200 && again.body == prepared.body)
        #expect(rig.origin.hits("/hot.jpg") == 2)
    }

    /// One kept answer (one libmicrohttpd response, one descriptor) sent to many connections at
    /// once, and to a HEAD between GETs: every body whole and the same.
    @Test func aKeptAnswerSentToManyConnectionsAtOnceIsWholeForEach() throws {
        let rig = try ServeRig()
        try rig.serve("small-320x240.jpg", as: "/many.jpg", type: "image/jpeg")
        let link = rig.link("/many.jpg")
        let prepared = try rig.get(link)
        #expect(try rig.get(link).body == prepared.body)
        let answers = TestHTTPClient.getMany(port: rig.server.port, path: link, count: 40)
        #expect(answers.allSatisfy { (try? $0.get())?.body == prepared.body })
        let head = try rig.get(link, method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty && head.headers["content-length"] == String(prepared.body.count))
        #expect(try rig.get(link).body == prepared.body)
        #expect(rig.server.metrics.contains("pushattach_cache_hits_kept_total 42"))
        #expect(rig.origin.hits("/many.jpg") == 1)
    }

    @Test func badMissingOrForeignSignaturesAre403() throws {
        let rig = try ServeRig()
        try rig.serve("small-320x240.jpg", as: "/a.jpg", type: "image/jpeg")
        let good = rig.link("/a.jpg")
        let segments = good.split(separator: "/")
        let unsigned = "/a/-/" + segments[2]
        let forged = "/a/" + String(repeating: "A", count: 43) + "/" + segments[2]
        let otherKey = AttachmentLink(source: URL(string: rig.origin.url("/a.jpg"))!)
            .path(signedBy: AttachmentSigner(key: Array("another key".utf8)))
        // The right signature with its last character's unused low bits set.
        let respelled = AttachmentLinkTests.otherSpellings(of: String(segments[1])).map { "/a/\($0)/" + segments[2] }
        for path in [unsigned, forged, otherKey, good + "?thumb=64"] + respelled {
            let answer = try rig.get(path)
            #expect(answer.status == 403, "\(path)")
            #expect(try rig.problem(answer).error == "forbidden")
        }
        #expect(rig.origin.hits("/a.jpg") == 0, "nothing is fetched for a bad signature")
        #expect(try rig.get(good).status == 200)
    }

    @Test func aTextFileIs422JSONAndTheRefusalIsCached() throws {
        let rig = try ServeRig()
        rig.origin.route("/note.jpg") { _ in .text("this is not a picture\n") }
        let link = rig.link("/note.jpg", typeHint: "image")
        let answer = try rig.get(link)
        #expect(answer.status == 422)
        #expect(answer.headers["content-type"] == "application/json")
        let problem = try rig.problem(answer)
        #expect(problem.error == "rejected")
        #expect(problem.status == 422)
        #expect(problem.errorCode != nil)
        #expect(!problem.reason.isEmpty)
        let again = try rig.get(link)
        #expect(again.status == 422)
        #expect(try rig.problem(again) == problem)
        #expect(rig.origin.hits("/note.jpg") == 1, "a refusal is answered from the cache for its TTL")
        // The first answer and the cached one carry the same headers, so a CDN keeps either.
        for refusal in [answer, again] {
            #expect(refusal.headers["cache-control"]?.hasPrefix("public, max-age=") == true, "\(refusal.headers)")
            #expect(refusal.headers["content-type"] == "application/json")
        }
        #expect(Set([answer, again].map { $0.headers.keys.sorted() }).count == 1)
    }

    /// The origin's 404 is a refusal too: its first answer may be kept by a CDN like the later ones.
    @Test func theOriginsNotFoundHasTheSameCachingHeadersFirstAndFromTheCache() throws {
        let rig = try ServeRig { $0.rejectionTTL = .seconds(60) }
        let link = rig.link("/status/404")
        let first = try rig.get(link)
        let second = try rig.get(link)
        #expect(first.status == 404 && second.status == 404)
        #expect(first.headers["cache-control"] == "public, max-age=60", "\(first.headers)")
        #expect(second.headers["cache-control"]?.hasPrefix("public, max-age=") == true, "\(second.headers)")
        #expect(first.body == second.body)
        #expect(rig.origin.hits("/status/404") == 1)
    }

    /// An origin's 503 with Retry-After: the client gets the same advice, as a header and in the JSON.
    @Test func theOriginsRetryAfterReachesTheClient() throws {
        let rig = try ServeRig()
        rig.origin.route("/busy.jpg") { _ in
            TestHTTPServer.Response(status: 503, headers: [("Retry-After", "7")], body: .bytes(Data("busy\n".utf8)))
        }
        let answer = try rig.get(rig.link("/busy.jpg"))
        #expect(answer.status == 502)
        #expect(answer.headers["retry-after"] == "7")
        #expect(answer.headers["cache-control"] == "no-store")
        let problem = try rig.problem(answer)
        #expect(problem.error == "origin_failed")
        #expect(problem.retryAfter == .seconds(7))
        let object = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        #expect(object["retryAfter"] as? Int == 7)
        // Without advice from the origin there is none in the answer either (the key is null).
        let broken = try rig.get(rig.link("/status/500"))
        #expect(broken.headers["retry-after"] == nil)
        #expect(try rig.problem(broken).retryAfter == nil)
        let plain = try #require(try JSONSerialization.jsonObject(with: broken.body) as? [String: Any])
        #expect(plain.keys.contains("retryAfter") && plain["retryAfter"] is NSNull)
    }

    @Test func theOriginsNotFoundIs404AndOtherFailuresAre502() throws {
        let rig = try ServeRig()
        let missing = try rig.get(rig.link("/status/404"))
        #expect(missing.status == 404)
        #expect(try rig.problem(missing).error == "not_found")
        let broken = try rig.get(rig.link("/status/500"))
        #expect(broken.status == 502)
        #expect(try rig.problem(broken).error == "origin_failed")
    }

    /// `work` swapped for a link while the server runs: the preparation still goes where the cache
    /// opened it, and nothing is written through the link.
    @Test func aLinkPlantedAtWorkWhileServingIsNotFollowed() throws {
        let rig = try ServeRig()
        try rig.serve("small-320x240.jpg", as: "/a.jpg", type: "image/jpeg")
        let elsewhere = rig.folder.deletingLastPathComponent().appendingPathComponent("elsewhere-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let work = rig.folder.appendingPathComponent("work")
        try FileManager.default.moveItem(at: work, to: rig.folder.appendingPathComponent("work.moved"))
        try FileManager.default.createSymbolicLink(at: work, withDestinationURL: elsewhere)
        let answer = try rig.get(rig.link("/a.jpg"))
        #expect(answer.status == 200, "\(String(decoding: answer.body.prefix(300), as: UTF8.self))")
        #expect(answer.body.starts(with: [0xFF, 0xD8]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    }

    /// The server's preparation budget, not the preparer's own call deadline, bounds a
    /// preparation: a download longer than `preparer.callDeadline` and within `prepareTimeout`
    /// is served.
    @Test func aPreparationIsBoundedByTheServersBudgetNotThePreparersCallDeadline() throws {
        let rig = try ServeRig {
            $0.preparer.callDeadline = .milliseconds(200)
            $0.prepareTimeout = .seconds(120)
            $0.deadline = .seconds(120)
        }
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        // The origin drips its 13 KB a byte at a time: longer than 200 ms however fast the machine.
        rig.origin.route("/dripped.jpg") { _ in
            TestHTTPServer.Response(status: 200, headers: [("Content-Type", "image/jpeg")], body: .drip(jpeg, every: .microseconds(50)))
        }
        let answer = try rig.get(rig.link("/dripped.jpg"))
        #expect(answer.status == 200, "\(String(decoding: answer.body.prefix(300), as: UTF8.self))")
    }

    @Test func anOriginSlowerThanTheDeadlineIs504() throws {
        let rig = try ServeRig { $0.deadline = .milliseconds(800) }
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        let gate = rig.origin.hold("/slow.jpg", .bytes(jpeg, contentType: "image/jpeg"))
        defer { gate.open() }
        let answer = try rig.get(rig.link("/slow.jpg"))
        #expect(answer.status == 504)
        #expect(try rig.problem(answer).error == "timeout")
        #expect(gate.current.passed == 0, "the deadline answered: the origin still holds the download")
    }

    /// Two clocks: an origin slower than the request deadline (held until the retry is in) gets
    /// 504 with Retry-After, the preparation goes on under its own budget, and a retry joins it:
    /// 200, one origin download.
    @Test func aPreparationOutlivesItsRequestAndARetryJoinsIt() throws {
        // A deadline the retry's own wait (the origin's answer, then the preparation, on a debug
        // build beside the other suites) stays well under.
        let rig = try ServeRig {
            $0.deadline = .seconds(6)
            $0.prepareTimeout = .seconds(120)
        }
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        let gate = rig.origin.hold("/slow.jpg", .bytes(jpeg, contentType: "image/jpeg"))
        defer { gate.open() }
        let link = rig.link("/slow.jpg")
        let first = try rig.get(link)
        #expect(first.status == 504)
        let advice = try #require(first.headers["retry-after"].flatMap { Int($0) })
        #expect(advice >= 1 && advice <= 120)
        let problem = try rig.problem(first)
        #expect(problem.error == "timeout")
        #expect(problem.retryAfter == .seconds(advice))
        #expect(gate.current.waiting == 1, "the download outlived the request: still at the origin")
        #expect(rig.waitForMetric("pushattach_unattended_preparations 1"))

        let port = rig.server.port
        let retried = SharedValue<TestHTTPClient.Response?>(nil)
        let retry = TestThread { retried.value = try? TestHTTPClient.get(port: port, path: link, timeout: .seconds(300)) }
        retry.start()
        #expect(rig.waitForMetric("pushattach_coalesced_waits_total 1"), "the retry joined the preparation")
        gate.open()
        retry.join()
        #expect(retried.value?.status == 200)
        #expect(retried.value?.body.starts(with: [0xFF, 0xD8]) == true)
        #expect(rig.origin.hits("/slow.jpg") == 1, "one origin download")
        #expect(try rig.get(link).status == 200, "and cached")
        #expect(rig.origin.hits("/slow.jpg") == 1)
    }

    /// The preparation budget bounds the work itself: past it the preparation is stopped (a new
    /// request starts a new download) and its waiters get 504.
    @Test func aPreparationPastItsBudgetIsStopped() throws {
        let rig = try ServeRig {
            $0.deadline = .seconds(60)
            $0.prepareTimeout = .seconds(1)
        }
        let gate = rig.origin.hold("/stalled.jpg")
        defer { gate.open() }
        let link = rig.link("/stalled.jpg")
        let answer = try rig.get(link)
        #expect(answer.status == 504)
        #expect(try rig.problem(answer).error == "timeout")
        // The budget ended the preparation (the 60 s deadline would have left it in flight).
        #expect(rig.waitForMetric("pushattach_pending_preparations 0"), "nothing left in flight")
        let port = rig.server.port
        let again = TestThread { _ = try? TestHTTPClient.get(port: port, path: link) }
        again.start()
        #expect(gate.waitBlocking(timeout: HangGuard.wait) { $0.arrived == 2 } != nil, "a new request downloads again")
        gate.open()
        again.join()
    }

    /// Work that outlived its requests is cancelled when the server stops.
    @Test func stoppingTheServerCancelsPreparationsNoRequestWaitsFor() throws {
        let rig = try ServeRig {
            $0.deadline = .seconds(1)
            $0.prepareTimeout = .seconds(300)
        }
        let gate = rig.origin.hold("/held.jpg")
        defer { gate.open() }
        #expect(try rig.get(rig.link("/held.jpg")).status == 504)
        #expect(rig.waitForMetric("pushattach_unattended_preparations 1"))
        rig.server.stop()
        #expect(rig.waitForMetric("pushattach_pending_preparations 0"), "cancelled, though the origin still holds it")
        #expect(!gate.current.isOpen)
    }

    /// An origin that wants credentials gets them from the server's configuration, by host, not
    /// from the link.
    @Test func originHeadersReachTheirOrigin() throws {
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        let guarded: TestHTTPServer.Handler = { request in
            request.headers["authorization"] == "Bearer s3cret" ? .bytes(jpeg, contentType: "image/jpeg") : .text("who?", status: 401)
        }
        let rig = try ServeRig { $0.originHeaders = ["127.0.0.1": ["Authorization": "Bearer s3cret"], "*.example.com": ["X-Other": "1"]] }
        rig.origin.route("/private.jpg", guarded)
        #expect(try rig.get(rig.link("/private.jpg")).status == 200)
        let without = try ServeRig { $0.originHeaders = ["cdn.example.com": ["Authorization": "Bearer s3cret"]] }
        without.origin.route("/private.jpg", guarded)
        let refused = try without.get(without.link("/private.jpg"))
        #expect(refused.status == 502, "another host's headers are not sent")
        #expect {
            try ServeRig { $0.originHeaders = ["cdn.example.com": ["Bad Name": "x"]] }
        } throws: { error in
            guard case .configuration(let reason) = error as? ServerError else { return false }
            return reason.contains("originHeaders")
        }
    }

    @Test func pastMaxPendingAMissIs503WithRetryAfter() throws {
        let rig = try ServeRig { $0.maxPending = 1 }
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        let gate = rig.origin.hold("/held.jpg", .bytes(jpeg, contentType: "image/jpeg"))
        let port = rig.server.port
        let heldLink = rig.link("/held.jpg")
        let held = Thread { _ = try? TestHTTPClient.get(port: port, path: heldLink) }
        held.start()
        _ = gate.waitBlocking { $0.waiting == 1 }
        rig.origin.route("/b.jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") }
        let busy = try rig.get(rig.link("/b.jpg"))
        #expect(busy.status == 503)
        #expect(busy.headers["retry-after"] == "1")
        #expect(try rig.problem(busy).error == "unavailable")
        gate.open()
    }

    /// What `serve` watches to hand memory back once idle: a preparation is in flight while
    /// its download is held, and when it has ended the time it ended is known.
    @Test func preparationActivityShowsAPreparationInFlightThenWhenItEnded() throws {
        let rig = try ServeRig()
        #expect(rig.server.preparationActivity.inFlight == 0)
        #expect(rig.server.preparationActivity.lastEnded == nil)
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        let gate = rig.origin.hold("/held.jpg", .bytes(jpeg, contentType: "image/jpeg"))
        defer { gate.open() }
        let port = rig.server.port
        let link = rig.link("/held.jpg")
        let answer = SharedValue<TestHTTPClient.Response?>(nil)
        let request = TestThread { answer.value = try? TestHTTPClient.get(port: port, path: link, timeout: .seconds(300)) }
        request.start()
        #expect(gate.waitBlocking(timeout: HangGuard.wait) { $0.waiting == 1 } != nil, "the download is at the origin")
        let during = rig.server.preparationActivity
        #expect(during.inFlight == 1)
        #expect(during.lastEnded == nil)

        let before = ContinuousClock.now
        gate.open()
        request.join()
        #expect(answer.value?.status == 200)
        // The histogram counts a preparation in the same step that records its end.
        #expect(rig.waitForMetric("pushattach_preparation_seconds_count 1"))
        let after = rig.server.preparationActivity
        #expect(after.inFlight == 0)
        #expect(try #require(after.lastEnded) >= before)
    }

    @Test func aThumbnailLinkAnswersAThumbnail() throws {
        let rig = try ServeRig()
        try rig.serve("photo-1600x1200.jpg", as: "/p.jpg", type: "image/jpeg")
        let answer = try rig.get(rig.link("/p.jpg", thumbnail: 128))
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"] == "image/jpeg")
        let whole = try rig.get(rig.link("/p.jpg"))
        #expect(answer.body.count < whole.body.count / 4)
        #expect(rig.origin.hits("/p.jpg") == 1, "the thumbnail is made from the cached attachment")
    }

    /// The preparer's pipeline in the cache's work folder (its threads, download client and own
    /// spool folder) is started once and kept between preparations, and stops with the server.
    @Test func theWorkFoldersPipelineLivesAcrossPreparationsAndStopsWithTheServer() throws {
        let rig = try ServeRig()
        try rig.serve("photo-1600x1200.jpg", as: "/p.jpg", type: "image/jpeg")
        try rig.serve("photo-1600x1200.jpg", as: "/q.jpg", type: "image/jpeg")
        let work = rig.folder.appendingPathComponent("work")
        func spools() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.hasPrefix(".spool.p-") }.sorted()
        }
        let started = try spools()
        #expect(started.count == 1)
        #expect(try rig.get(rig.link("/p.jpg")).status == 200)
        #expect(try rig.get(rig.link("/q.jpg")).status == 200)
        #expect(try spools() == started)

        rig.server.stop()
        #expect(try spools().isEmpty)
    }

    @Test func operationalRoutesAnswer() throws {
        let rig = try ServeRig()
        #expect(try rig.get("/healthz").status == 200)
        #expect(try rig.get("/readyz").status == 200)
        let metrics = try rig.get("/metrics")
        #expect(metrics.status == 200)
        let text = String(decoding: metrics.body, as: UTF8.self)
        for name in [
            "pushattach_requests_total", "pushattach_cache_hits_total", "pushattach_cache_misses_total",
            "pushattach_origin_fetches_total", "pushattach_coalesced_waits_total",
            "pushattach_preparation_seconds_bucket{le=\"+Inf\"}", "pushattach_in_flight_requests",
            "pushattach_resident_memory_bytes",
        ] {
            #expect(text.contains(name), "\(name)")
        }
        #expect(try rig.get("/nothing").status == 404)
        #expect(try rig.get("/healthz", method: "POST").status == 405)
    }

    /// 1,000 requests at once for one uncached 12 MP photo: one origin download, 1,000 identical 200s.
    /// No header or idle timeout: on a loaded machine the client's last connections may send
    /// their request heads more than the default 10 s after they connected, and this test is
    /// about the coalescing, not the timeouts (ServeOperationsTests has those).
    @Test func aThunderingHerdMakesOneDownload() throws {
        let rig = try ServeRig {
            $0.connectionLimit = 2048
            $0.headerTimeout = .zero
            $0.idleTimeout = 300
        }
        try rig.serve("large-4000x3000.jpg", as: "/big.jpg", type: "image/jpeg")
        let answers = TestHTTPClient.getMany(port: rig.server.port, path: rig.link("/big.jpg"), count: 1000)
        let responses = answers.compactMap { try? $0.get() }
        #expect(responses.count == 1000, "\(answers.compactMap { if case .failure(let f) = $0 { f.description } else { nil } }.prefix(3))")
        #expect(responses.allSatisfy { $0.status == 200 })
        #expect(Set(responses.map(\.body)).count == 1, "every answer byte-identical")
        #expect(rig.origin.hits("/big.jpg") == 1, "exactly one origin download")
        let times = responses.map { Double($0.elapsed.components.attoseconds) / 1e15 + Double($0.elapsed.components.seconds) * 1000 }
            .sorted()
        if !times.isEmpty {
            let p50 = times[times.count / 2], p99 = times[min(times.count - 1, times.count * 99 / 100)]
            print("thundering herd: 1000 requests, 1 origin download, p50 \(Int(p50)) ms, p99 \(Int(p99)) ms")
        }
        #expect(rig.server.metrics.contains("pushattach_origin_fetches_total 1"))
    }

    static func sha256Hex(_ data: Data) -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try? data.write(to: file)
        let result = try? ProcessRunner.runExecutable(URL(fileURLWithPath: "/usr/bin/sha256sum"), [file.path])
        return String(result?.stdout.prefix(64) ?? "")
    }
}
