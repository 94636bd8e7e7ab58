import AttachmentServer
import Foundation
import PushAttach
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The access log, slow clients and connection limits.
@Suite(.serialized, .ownThread, .tags(.slow), .notInFastTier) struct ServeOperationsTests {
    @Test func theAccessLogHasOneJSONLinePerRequestWithoutSignaturesURLsOrQueries() throws {
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("access-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let log = logs.appendingPathComponent("access.log")
        let rig = try ServeRig { $0.accessLogPath = log.path }
        try rig.serve("small-320x240.jpg", as: "/secret-name.jpg", type: "image/jpeg")
        let link = rig.link("/secret-name.jpg", typeHint: "image")
        #expect(try rig.get(link).status == 200)
        #expect(try rig.get(link).status == 200)
        #expect(try rig.get("/healthz?probe=1").status == 200)
        // A line is written when the server's thread finishes the request, which can be after
        // the client has read the answer: wait for the third, woken by each write to the log.
        func lines() -> [Substring] {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
        }
        #expect(FolderEvents.waitBlocking(in: logs) { lines().count >= 3 })
        let lines = lines()
        #expect(lines.count == 3)
        let signature = String(link.split(separator: "/")[1])
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for field in ["time", "client", "method", "route", "status", "bytes", "ms", "cache"] {
                #expect(object[field] != nil, "\(field) in \(line)")
            }
            #expect(!line.contains(signature))
            #expect(!line.contains("secret-name"))
            #expect(!line.contains("?"))
            #expect(!line.contains("aHR0c"), "no base64 of the source URL")
        }
        let caches = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { $0["cache"] as? String }
        #expect(caches == ["miss", "hit", "-"])
    }

    @Test func aClientThatTricklesItsHeadIsClosedWhileOthersAreServed() throws {
        let rig = try ServeRig { $0.idleTimeout = 5 }
        let slow = try TestHTTPClient.connect(port: rig.server.port)
        defer { close(slow) }
        let partial = Array("GET /healthz HTTP/1.1\r\nHost: x\r\n".utf8)
        _ = partial.withUnsafeBytes { send(slow, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let other = try rig.get("/healthz")
        #expect(other.status == 200)
        // Answered while the half-sent head still holds its connection: not after its cut-off.
        #expect(!TestHTTPClient.isClosedByPeer(slow, within: .zero), "another client is not held up")
        #expect(TestHTTPClient.isClosedByPeer(slow, within: .seconds(60)), "the slow client is cut off")
    }

    @Test func thePerAddressLimitRefusesOneConnectionTooMany() throws {
        let rig = try ServeRig { $0.perIPLimit = 2 }
        // Two connections the server has taken: each has had an answer, and is kept open.
        let first = try TestHTTPClient.connect(port: rig.server.port)
        let second = try TestHTTPClient.connect(port: rig.server.port)
        for fd in [first, second] {
            #expect(TestHTTPClient.exchange(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        }
        let third = try TestHTTPClient.connect(port: rig.server.port)
        defer { close(third) }
        #expect(TestHTTPClient.isClosedByPeer(third, within: .seconds(60)), "the third connection from 127.0.0.1 is closed")
        // The server closes the two itself (Connection: close), so it has counted them out by the
        // time the client sees the end of each.
        for fd in [first, second] {
            _ = TestHTTPClient.exchange(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(TestHTTPClient.isClosedByPeer(fd, within: .seconds(60)))
            close(fd)
        }
        #expect(try rig.get("/healthz").status == 200, "below the limit again")
    }

    /// Sends `text` on a new connection and reads until the server closes it (or 10 s pass).
    static func exchange(_ text: String, port: Int) throws -> (answer: String, closed: Bool) {
        let fd = try TestHTTPClient.connect(port: port)
        defer { close(fd) }
        let request = Array(text.utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < end {
            var readable = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&readable, 1, 100) == 1 else { continue }
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { return (String(decoding: answer, as: UTF8.self), true) }
            answer += buffer[..<count]
        }
        return (String(decoding: answer, as: UTF8.self), false)
    }

    /// How many answers `text` holds.
    static func answers(in text: String) -> Int { text.components(separatedBy: "HTTP/1.1 ").count - 1 }

    @Test func aMethodOtherThanGetOrHeadIs405() throws {
        let rig = try ServeRig()
        let (text, _) = try Self.exchange("POST /a/x/y HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", port: rig.server.port)
        #expect(text.hasPrefix("HTTP/1.1 405"), "\(text)")
        #expect(text.lowercased().contains("allow: get, head"))
        #expect(text.contains("\"method_not_allowed\""))
    }

    /// A request whose framing a proxy in front could read otherwise gets one 400, and nothing after
    /// its head is taken for another request: the connection is closed. Each one carries a second,
    /// pipelined request that must not be answered.
    @Test(arguments: [
        ("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", "Transfer-Encoding"),
        ("Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "Transfer-Encoding"),
        ("Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n", "header name"),
        ("Content-Length: 0\r\nContent-Length: 0\r\n\r\n", "Content-Length"),
        ("Content-Length: 0\r\nContent-Length: 23\r\n\r\n", "Content-Length"),
        ("Content-Length: 23\r\n\r\n", "Content-Length"),
        ("X(y): z\r\n\r\n", "header name"),
        ("Bad Name: z\r\n\r\n", "header name"),
    ])
    func aRequestWithAmbiguousFramingGetsOne400AndTheConnectionIsClosed(headers: String, named: String) throws {
        let rig = try ServeRig()
        let smuggled = "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"
        let (text, closed) = try Self.exchange("GET /healthz HTTP/1.1\r\nHost: x\r\n" + headers + smuggled, port: rig.server.port)
        #expect(text.hasPrefix("HTTP/1.1 400"), "\(text)")
        #expect(Self.answers(in: text) == 1, "\(text)")
        #expect(text.contains("\"bad_request\"") && text.contains(named), "\(text)")
        #expect(!text.contains("ready"), "the pipelined request is not answered")
        #expect(closed, "the connection is closed after the 400")
    }

    /// One `Content-Length: 0` is what some clients send with a GET: served, and the connection kept.
    @Test func aSingleContentLengthOfZeroIsServed() throws {
        let rig = try ServeRig()
        let head = "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
        let (text, _) = try Self.exchange(head + "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", port: rig.server.port)
        #expect(Self.answers(in: text) == 2, "\(text)")
        #expect(text.hasPrefix("HTTP/1.1 200") && text.contains("ready"), "\(text)")
    }

    /// A head sent a byte at a time, never idle for long, is closed at the header timeout; with only
    /// the idle timeout (60 s) it would be held as long as it trickles.
    @Test func aTrickledRequestHeadIsClosedAtTheHeaderTimeout() throws {
        let rig = try ServeRig {
            $0.idleTimeout = 60
            $0.headerTimeout = .seconds(1)
        }
        let fd = try TestHTTPClient.connect(port: rig.server.port)
        defer { close(fd) }
        let head = Array(("GET /healthz HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-Padding: trickle\r\n", count: 20)).utf8)
        let sent = LockedCount()
        // A slow client: one byte every 50 ms, a head of about 20 s.
        let trickler = TestThread { TestHTTPClient.trickle(head, on: fd, every: .milliseconds(50)) { sent.add(1) } }
        trickler.start()
        #expect(TestHTTPClient.isClosedByPeer(fd, within: .seconds(60)), "closed while still trickling")
        #expect(sent.value < head.count, "\(sent.value) of \(head.count) bytes sent: the head never completed")
        // The descriptor is closed only once the trickler stopped (its next send fails).
        trickler.join()
        #expect(try rig.get("/healthz").status == 200, "others are served")
    }

    @Test func aNonASCIITypeHintIsSignedAsItIsSent() throws {
        let rig = try ServeRig()
        try rig.serve("small-320x240.jpg", as: "/p.jpg", type: "image/jpeg")
        let link = rig.link("/p.jpg", typeHint: "bild/jpeg-é")
        #expect(link.contains("%C3%A9"), "percent-encoded in the link: \(link)")
        let answer = try rig.get(link)
        #expect(answer.status != 403, "\(answer.status)")
    }
}
