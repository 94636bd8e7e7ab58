import Foundation
import PushAttach
import TestSupport
import Testing

/// `pushattach serve` as a process: signals, and replicas sharing one cache folder.
@Suite(.serialized, .tags(.slow), .notInFastTier) struct ServeCLITests {
    static let key = "cli test signing key"

    /// A `pushattach serve` child on a free loopback port.
    final class ServeProcess {
        let process = Process()
        let port: Int
        private let errors = Pipe()
        private var text = ""

        init(cache: URL, extra: [String] = []) throws {
            process.executableURL = ProcessRunner.product("pushattach")
            let log = extra.contains("--access-log") ? [] : ["--access-log", "off"]
            // A debug build preparing a 12 MP photo beside the other suites can pass the default
            // 20 s: these tests are about signals and a shared cache, not the deadline.
            let patience = extra.contains("--deadline") ? [] : ["--deadline", "300"]
            process.arguments =
                ["serve", "--cache", cache.path, "--listen", "127.0.0.1:0", "--allow-private-networks"] + log + patience
                + extra
            process.environment = ProcessInfo.processInfo.environment.merging(["PUSHATTACH_SIGNING_KEY": ServeCLITests.key]) { $1 }
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            // "pushattach serve: listening on http://127.0.0.1:PORT (cache …)"
            var found: Int?
            let deadline = Date().addingTimeInterval(30)
            while found == nil, Date() < deadline, process.isRunning {
                let chunk = errors.fileHandleForReading.availableData
                if chunk.isEmpty { continue }
                text += String(decoding: chunk, as: UTF8.self)
                if let range = text.range(of: "http://127.0.0.1:") {
                    found = Int(text[range.upperBound...].prefix { $0.isNumber })
                }
            }
            guard let found else {
                process.terminate()
                throw TestHTTPClient.Failure(description: "serve did not start: \(text)")
            }
            port = found
        }

        /// Waits for the exit; the status and everything written to stderr.
        func wait() -> (Int32, String) {
            let rest = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, text + String(decoding: rest, as: UTF8.self))
        }

        func terminate() { kill(process.processIdentifier, SIGTERM) }

        /// Reads the child's standard error until it holds `text` (true), or until it ends.
        func waitForOutput(containing text: String) -> Bool {
            while !self.text.contains(text) {
                let chunk = errors.fileHandleForReading.availableData
                if chunk.isEmpty { return false }
                self.text += String(decoding: chunk, as: UTF8.self)
            }
            return true
        }
    }

    static func link(_ url: String) -> String {
        AttachmentLink(source: URL(string: url)!, typeHint: "image").path(signedBy: AttachmentSigner(key: Array(key.utf8)))
    }

    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("serve-cli-\(UUID().uuidString)")
    }

    @Test func sigtermLetsRequestsInFlightFinishThenExitsZero() throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let cache = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("photo-1600x1200.jpg"))
        let gate = origin.hold("/slow.jpg", .bytes(jpeg, contentType: "image/jpeg"))
        let serve = try ServeProcess(cache: cache, extra: ["--grace", "300"])
        let port = serve.port
        let path = Self.link(origin.url("/slow.jpg"))
        let answers = LockedBox<[TestHTTPClient.Response]>([])
        let clients = (0..<3).map { _ in
            TestThread {
                if let answer = try? TestHTTPClient.get(port: port, path: path, timeout: .seconds(300)) {
                    answers.update { $0.append(answer) }
                }
            }
        }
        clients.start()
        _ = gate.waitBlocking { $0.waiting == 1 }
        // The three requests are in (the /metrics request that asks counts itself too).
        #expect(Self.waitUntil { Self.metric("pushattach_in_flight_requests", of: port) == 4 })
        serve.terminate()
        #expect(serve.waitForOutput(containing: "draining"))
        #expect(serve.process.isRunning, "draining: still up while requests are in flight")
        gate.open()
        let (status, stderr) = serve.wait()
        #expect(status == 0, "\(stderr)")
        clients.join()
        #expect(answers.value.count == 3)
        #expect(answers.value.allSatisfy { $0.status == 200 && $0.body.starts(with: [0xFF, 0xD8]) })
        #expect(origin.hits("/slow.jpg") == 1)
    }

    @Test func duringTheDrainDelayReadyzIs503AndConnectionsAreStillTaken() throws {
        let cache = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let serve = try ServeProcess(cache: cache, extra: ["--drain-delay", "2", "--grace", "1"])
        #expect(try TestHTTPClient.get(port: serve.port, path: "/readyz").status == 200)
        let started = Date()
        serve.terminate()
        #expect(serve.waitForOutput(containing: "draining"))
        #expect(try TestHTTPClient.get(port: serve.port, path: "/readyz").status == 503)
        #expect(try TestHTTPClient.get(port: serve.port, path: "/healthz").status == 200, "still taking connections")
        let (status, stderr) = serve.wait()
        #expect(status == 0, "\(stderr)")
        #expect(Date().timeIntervalSince(started) >= 2)
        #expect(throws: (any Error).self, "the listener is closed after the delay") {
            try TestHTTPClient.get(port: serve.port, path: "/healthz", timeout: .seconds(2))
        }
    }

    /// Errors at start say what, where and what to do, in serve's own flags.
    @Test func startErrorsNameTheFlagAndTheFix() throws {
        let badCache = try ProcessRunner.run(
            "pushattach", ["serve", "--cache", "/proc/no-such-folder/cache", "--allow-unsigned", "--listen", "127.0.0.1:0"])
        #expect(badCache.status == 2)
        #expect(badCache.stderr.contains("/proc/no-such-folder"), "\(badCache.stderr)")
        #expect(badCache.stderr.contains("the --cache path"), "\(badCache.stderr)")
        #expect(!badCache.stderr.contains("PrepareOptions"), "\(badCache.stderr)")
        // A documentation address (TEST-NET-1) no machine has: bind fails, nothing is sent.
        let cache = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let badAddress = try ProcessRunner.run(
            "pushattach", ["serve", "--cache", cache.path, "--allow-unsigned", "--listen", "192.0.2.1:8080"])
        #expect(badAddress.status == 2)
        #expect(badAddress.stderr.contains("cannot listen on 192.0.2.1:8080"), "\(badAddress.stderr)")
        #expect(badAddress.stderr.contains("not an address of this machine"), "\(badAddress.stderr)")
    }

    /// Credentials for an origin come from --origin-headers FILE (not from links): sent to that
    /// host only. A malformed line is refused naming its place, not its text.
    @Test func originHeadersFromAFileReachTheOrigin() throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        origin.route("/private.jpg") { request in
            request.headers["authorization"] == "Bearer s3cret" ? .bytes(jpeg, contentType: "image/jpeg") : .text("who?", status: 401)
        }
        let file = folder.appendingPathComponent("origin-headers")
        try "# origin credentials\n127.0.0.1:Authorization:Bearer s3cret\n".write(to: file, atomically: true, encoding: .utf8)
        let serve = try ServeProcess(cache: folder.appendingPathComponent("c"), extra: ["--origin-headers", file.path])
        defer {
            serve.terminate()
            _ = serve.wait()
        }
        #expect(try TestHTTPClient.get(port: serve.port, path: Self.link(origin.url("/private.jpg"))).status == 200)

        try "127.0.0.1 Authorization s3cret\n".write(to: file, atomically: true, encoding: .utf8)
        let bad = try ProcessRunner.run(
            "pushattach", ["serve", "--cache", folder.appendingPathComponent("d").path, "--allow-unsigned", "--origin-headers", file.path])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("origin-headers \(file.path):1"), "\(bad.stderr)")
        #expect(!bad.stderr.contains("s3cret"))
    }

    /// A link at DIR/work is refused at start, naming it; its target is left alone.
    @Test func aLinkAtTheCachesWorkFolderIsRefusedAtStart() throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("cache")
        let elsewhere = folder.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: cache.appendingPathComponent("work"), withDestinationURL: elsewhere)
        let result = try ProcessRunner.run(
            "pushattach", ["serve", "--cache", cache.path, "--allow-unsigned", "--listen", "127.0.0.1:0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/cache/work"), "\(result.stderr)")
        #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    }

    @Test func sighupReopensTheAccessLogAfterItWasMovedAway() throws {
        let cache = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let log = cache.appendingPathComponent("access.log")
        let serve = try ServeProcess(cache: cache.appendingPathComponent("c"), extra: ["--access-log", log.path])
        defer {
            serve.terminate()
            _ = serve.wait()
        }
        func text(_ file: URL) -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }
        #expect(try TestHTTPClient.get(port: serve.port, path: "/healthz").status == 200)
        // Each wait below is woken by the server's writes into the folder.
        #expect(FolderEvents.waitBlocking(in: cache) { text(log).contains("/healthz") }, "the line is written")
        let rotated = cache.appendingPathComponent("access.log.1")
        try FileManager.default.moveItem(at: log, to: rotated)
        kill(serve.process.processIdentifier, SIGHUP)
        #expect(FolderEvents.waitBlocking(in: cache) { FileManager.default.fileExists(atPath: log.path) }, "reopened")
        #expect(serve.process.isRunning, "SIGHUP does not stop the server")
        #expect(try TestHTTPClient.get(port: serve.port, path: "/readyz").status == 200)
        #expect(FolderEvents.waitBlocking(in: cache) { text(log).contains("/readyz") })
        let old = try String(contentsOf: rotated, encoding: .utf8)
        let new = try String(contentsOf: log, encoding: .utf8)
        #expect(old.contains("\"route\":\"/healthz\"") && !old.contains("/readyz"))
        #expect(new.contains("\"route\":\"/readyz\"") && !new.contains("/healthz"))
    }

    /// Stops each replica still running (SIGTERM) and waits for every one.
    static func stop(_ replicas: [ServeProcess]) {
        for replica in replicas where replica.process.isRunning { replica.terminate() }
        for replica in replicas { _ = replica.wait() }
    }

    /// A metric's value in a replica's `/metrics` (0 when absent).
    static func metric(_ name: String, of port: Int) -> Int {
        guard let answer = try? TestHTTPClient.get(port: port, path: "/metrics", timeout: .seconds(30)) else { return -1 }
        let prefix = name + " "
        let line = String(decoding: answer.body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
    }

    /// Waits until `condition` holds (each replica's state, read from its /metrics): true once it
    /// does, false after ten minutes (a broken test). The replicas are other processes with no
    /// way to tell the test of a change, so it asks again as soon as they have answered: each
    /// check is a round trip to them, which paces the loop.
    static func waitUntil(_ condition: () -> Bool) -> Bool {
        let end = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < end {
            if condition() { return true }
        }
        return false
    }

    static func sha256(_ data: Data) -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try? data.write(to: file)
        let result = try? ProcessRunner.runExecutable(URL(fileURLWithPath: "/usr/bin/sha256sum"), [file.path])
        return String(result?.stdout.prefix(64) ?? "")
    }

    /// 30 requests at once for `path` on each replica, each set on its own thread; the answers
    /// by replica once all are in.
    static func herd(_ path: String, on replicas: [ServeProcess]) -> (threads: [TestThread], answers: LockedBox<[Int: [Result<TestHTTPClient.Response, TestHTTPClient.Failure>]]>) {
        let answers = LockedBox<[Int: [Result<TestHTTPClient.Response, TestHTTPClient.Failure>]]>([:])
        let threads = replicas.enumerated().map { index, replica in
            let port = replica.port
            return TestThread {
                let got = TestHTTPClient.getMany(port: port, path: path, count: 30, timeout: .seconds(300))
                answers.update { $0[index] = got }
            }
        }
        threads.start()
        return (threads, answers)
    }

    /// Whether `answer` is a whole 200: its length as declared, a JPEG to its end, its ETag the
    /// body's SHA-256.
    static func isWhole(_ answer: TestHTTPClient.Response) -> Bool {
        answer.status == 200 && answer.headers["content-length"] == String(answer.body.count)
            && answer.body.starts(with: [0xFF, 0xD8]) && answer.body.suffix(2) == Data([0xFF, 0xD9])
            && answer.headers["etag"] == "\"\(sha256(answer.body))\""
    }

    /// Three replicas on one cache folder, 90 requests at once for one new slow link spread over
    /// them: one origin download (the lease), 90 whole 200s.
    @Test func aHerdOverThreeReplicasMakesOneOriginDownload() throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let cache = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("photo-1600x1200.jpg"))
        let gate = origin.hold("/herd.jpg", .bytes(jpeg, contentType: "image/jpeg"))
        defer { gate.open() }
        let replicas = try (0..<3).map { _ in try ServeProcess(cache: cache) }
        defer { Self.stop(replicas) }
        let (threads, answers) = Self.herd(Self.link(origin.url("/herd.jpg")), on: replicas)
        // Every request is in (each replica counts its own /metrics request too), one download
        // is held at the origin, and no replica started another.
        #expect(Self.waitUntil { replicas.allSatisfy { Self.metric("pushattach_in_flight_requests", of: $0.port) == 31 } })
        #expect(gate.waitBlocking(timeout: HangGuard.wait) { $0.waiting == 1 } != nil)
        #expect(replicas.map { Self.metric("pushattach_origin_fetches_total", of: $0.port) }.reduce(0, +) == 1)
        gate.open()
        threads.join()
        let all = answers.value.values.flatMap { $0 }.compactMap { try? $0.get() }
        #expect(all.count == 90)
        #expect(all.allSatisfy(Self.isWhole), "\(all.filter { !Self.isWhole($0) }.map(\.status).prefix(5))")
        #expect(Set(all.map(\.body)).count == 1, "one body, whichever replica answered")
        #expect(origin.hits("/herd.jpg") == 1, "one origin download for the three replicas")
    }

    /// The same herd with the lease holder killed (SIGKILL) mid-download: another replica takes the
    /// lease over and finishes; every answer the survivors give is whole, and so is the cache.
    @Test func aLeaseHolderKilledMidPreparationIsTakenOverAndNothingPartialIsServed() throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let cache = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("photo-1600x1200.jpg"))
        // Half the body, then held: the holder dies mid-download.
        let gate = origin.hold("/herd.jpg", sendingFirst: jpeg.count / 2, .bytes(jpeg, contentType: "image/jpeg"))
        defer { gate.open() }
        let replicas = try (0..<3).map { _ in try ServeProcess(cache: cache) }
        defer { Self.stop(replicas) }
        let path = Self.link(origin.url("/herd.jpg"))
        let (threads, answers) = Self.herd(path, on: replicas)
        #expect(Self.waitUntil { replicas.allSatisfy { Self.metric("pushattach_in_flight_requests", of: $0.port) == 31 } })
        #expect(gate.waitBlocking(timeout: HangGuard.wait) { $0.waiting == 1 } != nil)
        let holders = replicas.indices.filter { Self.metric("pushattach_origin_fetches_total", of: replicas[$0].port) == 1 }
        #expect(holders.count == 1)
        let holder = try #require(holders.first)
        kill(replicas[holder].process.processIdentifier, SIGKILL)
        // Another replica takes the lease over: a second download reaches the origin.
        #expect(gate.waitBlocking(timeout: HangGuard.wait) { $0.arrived == 2 } != nil, "the lease was taken over")
        gate.open()
        threads.join()
        let survivors = answers.value.filter { $0.key != holder }.values.flatMap { $0 }
        let answered = survivors.compactMap { try? $0.get() }
        #expect(answered.count == 60, "\(survivors.compactMap { if case .failure(let f) = $0 { f.description } else { nil } }.prefix(3))")
        #expect(answered.allSatisfy(Self.isWhole), "\(answered.filter { !Self.isWhole($0) }.map(\.status).prefix(5))")
        #expect(Set(answered.map(\.body)).count == 1)
        // The killed replica's clients lost their connections; none got a partial answer.
        let fromKilled = (answers.value[holder] ?? []).compactMap { try? $0.get() }
        #expect(fromKilled.allSatisfy(Self.isWhole))
        #expect(origin.hits("/herd.jpg") == 2, "the killed download and the one that finished")
        // The cache holds the whole answer: a replica answers it again without the origin.
        let survivor = replicas[(holder + 1) % 3]
        let again = try TestHTTPClient.get(port: survivor.port, path: path, timeout: .seconds(60))
        #expect(Self.isWhole(again) && again.body == answered.first?.body)
        #expect(origin.hits("/herd.jpg") == 2)
    }

    /// The audit's reproduction: two replicas on a cache smaller than a few answers, every request
    /// a new link, so each store is followed by an eviction that may be the other replica's. Every
    /// answer is a whole 200, and no body names a path of the server.
    @Test func twoReplicasOnATinyCacheAnswerEveryMissWhole() throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let cache = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        origin.route("/tiny.jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") }
        let a = try ServeProcess(cache: cache, extra: ["--cache-size", "0.1"])
        let b = try ServeProcess(cache: cache, extra: ["--cache-size", "0.1"])
        defer { Self.stop([a, b]) }
        let failures = LockedBox<[String]>([])
        let answered = LockedBox<Int>(0)
        let ports = [a.port, b.port]
        // Eight clients at once, each asking for one new link after another, alternating replicas:
        // about eight stores in flight, each followed by an eviction.
        let workers = (0..<8).map { worker in
            TestThread {
                for round in 0..<80 {
                    let path = Self.link(origin.url("/tiny.jpg?n=\(worker)-\(round)"))
                    let answer = Result { try TestHTTPClient.get(port: ports[(worker + round) % 2], path: path, timeout: .seconds(300)) }
                    guard case .success(let response) = answer, response.status == 200,
                        response.headers["content-length"] == String(response.body.count),
                        response.body.suffix(2) == Data([0xFF, 0xD9])
                    else {
                        let text = (try? answer.get()).map { "\($0.status) " + String(decoding: $0.body.prefix(300), as: UTF8.self) }
                        failures.update { $0.append(text ?? "\(answer)") }
                        continue
                    }
                    answered.update { $0 += 1 }
                }
            }
        }
        workers.start()
        workers.join()
        #expect(failures.value.isEmpty, "\(failures.value.count) failed: \(failures.value.prefix(3))")
        #expect(!failures.value.contains { $0.contains(cache.path) }, "no answer names the cache folder")
        #expect(answered.value == 8 * 80)
    }

    /// Two replicas on one cache folder with a cache small enough to evict under load: every
    /// answer whole and the same for one URL, whichever replica gave it.
    @Test func twoProcessesShareOneCacheUnderLoad() throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let cache = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: cache) }
        let files = [
            "photo-1600x1200.jpg", "small-320x240.jpg", "progressive-640x480.jpg", "gray-400x300.jpg",
            "lossy-320x240.webp", "opaque-300x200.png", "alpha-256x256.png", "large-4000x3000.jpg",
        ]
        for file in files {
            let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent(file))
            origin.route("/\(file)") { _ in .bytes(data, contentType: "application/octet-stream") }
        }
        let a = try ServeProcess(cache: cache, extra: ["--cache-size", "0.4"])
        let b = try ServeProcess(cache: cache, extra: ["--cache-size", "0.4"])
        defer { Self.stop([a, b]) }
        let bodies = LockedBox<[String: Set<Data>]>([:])
        let failures = LockedBox<[String]>([])
        let ports = (a.port, b.port)
        let workers = (0..<4).map { worker in
            TestThread {
                for round in 0..<3 {
                    for (index, file) in files.enumerated() {
                        let port = (worker + round + index) % 2 == 0 ? ports.0 : ports.1
                        let answers = TestHTTPClient.getMany(
                            port: port, path: Self.link(origin.url("/\(file)")), count: 8, timeout: .seconds(300))
                        for answer in answers {
                            guard case .success(let response) = answer, response.status == 200,
                                response.headers["content-length"] == String(response.body.count),
                                let etag = response.headers["etag"]
                            else {
                                failures.update { $0.append("\(file): \(answer)") }
                                continue
                            }
                            // The ETag goes with the body: one pair per URL, whichever replica answered.
                            bodies.update { $0[file, default: []].insert(Data(etag.utf8) + response.body) }
                        }
                    }
                }
            }
        }
        workers.start()
        workers.join()
        #expect(failures.value.isEmpty, "\(failures.value.prefix(3))")
        // A 0.4 MB cache cannot hold the eight answers, so
        // entries were evicted while the other replica was reading them.
        let entries = FileManager.default.enumerator(at: cache.appendingPathComponent("entries"), includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.lastPathComponent.count == 64 } ?? []
        #expect(entries.count < files.count, "\(entries.count) entries left")
        for file in files {
            let seen = bodies.value[file] ?? []
            #expect(seen.count == 1, "\(file): \(seen.count) different bodies")
            if let body = seen.first, file.hasSuffix(".jpg") {
                #expect(body.suffix(2) == Data([0xFF, 0xD9]), "\(file): a whole JPEG")
            }
        }
    }
}

/// A value shared by test threads.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}

@Suite(.tags(.slow), .notInFastTier) struct LinkCLITests {
    @Test func linkPrintsASignedLinkTheLibraryAccepts() throws {
        let result = try ProcessRunner.run(
            "pushattach", ["link", "https://cdn.example.com/cat.webp", "--type", "image", "--thumb", "128", "--base", "https://a.example/"],
            environment: ["PUSHATTACH_SIGNING_KEY": "k"])
        #expect(result.status == 0, "\(result.stderr)")
        let printed = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(printed.hasPrefix("https://a.example/a/"))
        let request = try AttachmentLink.parse(uri: String(printed.dropFirst("https://a.example".count)))
        #expect(request.link.source.absoluteString == "https://cdn.example.com/cat.webp")
        #expect(request.link.typeHint == "image")
        #expect(request.link.thumbnailSize == 128)
        #expect(AttachmentSigner(key: Array("k".utf8)).isValid(request.signature, for: request.signedPart))
    }

    /// A URL with a user name or password is refused, saying how to give the credentials to the
    /// server instead; the password is not echoed.
    @Test func linkRefusesAURLWithCredentials() throws {
        let result = try ProcessRunner.run(
            "pushattach", ["link", "https://user:s3cretpw@cdn.example.com/cat.webp"], environment: ["PUSHATTACH_SIGNING_KEY": "k"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("--origin-header"), "\(result.stderr)")
        #expect(result.stderr.contains("https://***@cdn.example.com/cat.webp"), "\(result.stderr)")
        #expect(!result.stderr.contains("s3cretpw"))
    }

    @Test func linkWithoutAKeyIsAUsageError() throws {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "PUSHATTACH_SIGNING_KEY")
        let result = try ProcessRunner.run("pushattach", ["link", "https://cdn.example.com/cat.webp"], environment: environment)
        #expect(result.status == 64)
        #expect(result.stderr.contains("no signing key"))
    }
}
