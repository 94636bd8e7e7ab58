import Foundation
import TestSupport
import Testing

@testable import Fetch

/// What the client asks for (`Accept`) and how it takes a compressed answer (`Content-Encoding`).
@Suite("Accept and Content-Encoding")
struct NegotiationTests {
    // MARK: Accept

    @Test func defaultAcceptNamesWhatIOSShowsFirst() {
        let accept = FetchPolicy.defaultAccept
        #expect(accept.hasPrefix("image/jpeg, image/png, image/gif, "))
        #expect(accept.hasSuffix("*/*;q=0.1"))
        #expect(accept.contains("image/webp;q=0.8"))
        #expect(!accept.contains("avif"))
        #expect(FetchPolicy().accept == accept)
    }

    @Test func serverSeesTheDefaultAccept() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/accept") { request in .text(request.headers["accept"] ?? "none") }
        let client = HTTPClient(policy: loopbackPolicy())
        let response = try await client.fetch(server.url("/accept"))
        #expect(String(decoding: response.body, as: UTF8.self) == FetchPolicy.defaultAccept)
    }

    @Test func serverSeesAConfiguredAcceptOrLibcurlsDefault() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/accept") { request in .text(request.headers["accept"] ?? "none") }
        let custom = HTTPClient(policy: loopbackPolicy { $0.accept = "image/png" })
        #expect(String(decoding: try await custom.fetch(server.url("/accept")).body, as: UTF8.self) == "image/png")
        let none = HTTPClient(policy: loopbackPolicy { $0.accept = nil })
        #expect(String(decoding: try await none.fetch(server.url("/accept")).body, as: UTF8.self) == "*/*")
    }

    @Test func acceptIsSentOnEveryRedirectHop() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/accept") { request in .text(request.headers["accept"] ?? "none") }
        let client = HTTPClient(policy: loopbackPolicy())
        let response = try await client.fetch(server.url("/redirect/2/accept"))
        #expect(response.redirects.count == 2)
        #expect(String(decoding: response.body, as: UTF8.self) == FetchPolicy.defaultAccept)
    }

    // MARK: Content-Encoding

    /// `python3 -c 'import gzip; print(gzip.compress(b"hello, gzip\n" * 1000, 9, mtime=0).hex())'`
    static let smallGzip = hexData(
        "1f8b0800000000000203edc6310d00200c00b01f1508c01661244bc68d7a64f0b4576366d6e8ebeed3c2dddddddddddd"
            + "ddddddddddddddddddddddddddddddddfdd31f0499c54be02e0000")

    /// 4,000,000 zero bytes, gzipped: 3,910 bytes on the wire, 1,023 times that decoded.
    /// `python3 -c 'import gzip; g = gzip.compress(bytes(4_000_000), 9, mtime=0)'` gives these
    /// 25 bytes, 3,875 zero bytes, then these 10 (the end of the block, CRC-32 and length).
    static let gzipBomb =
        hexData("1f8b0800000000000203edc1010d000000c2a0f74f6d0f0714") + Data(count: 3875)
        + hexData("f06e7f2adbcf00093d00")

    static func hexData(_ hex: String) -> Data {
        var bytes: [UInt8] = []
        var digits = hex.makeIterator()
        while let high = digits.next(), let low = digits.next() {
            bytes.append(UInt8(String([high, low]), radix: 16)!)
        }
        return Data(bytes)
    }

    @Test func acceptEncodingAsksForTheBytesAsStored() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/asked") { request in .text(request.headers["accept-encoding"] ?? "none") }
        let client = HTTPClient(policy: loopbackPolicy())
        let response = try await client.fetch(server.url("/asked"))
        #expect(String(decoding: response.body, as: UTF8.self) == "identity")
    }

    @Test func gzipBodySentAnywayIsDecoded() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/hello.txt") { _ in
            TestHTTPServer.Response(
                status: 200, headers: [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
                body: .bytes(Self.smallGzip))
        }
        let client = HTTPClient(policy: loopbackPolicy())
        let response = try await client.fetch(server.url("/hello.txt"))
        #expect(Self.smallGzip.count == 75)
        #expect(response.body == Data(String(repeating: "hello, gzip\n", count: 1000).utf8))
    }

    @Test func gzipBombStopsAtTheCapCountedInDecodedBytes() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/bomb.png") { _ in
            TestHTTPServer.Response(
                status: 200, headers: [("Content-Type", "image/png"), ("Content-Encoding", "gzip")],
                body: .bytes(Self.gzipBomb))
        }
        let cap = 1_000_000
        let client = HTTPClient(policy: loopbackPolicy { $0.byteCap = cap })
        let url = server.url("/bomb.png")
        // 3,910 bytes on the wire, far under the cap; 4 MB decoded, far over it. The body is
        // dropped when the cap is passed, so at most the cap plus one decoded chunk is held.
        #expect(Self.gzipBomb.count < cap / 100)
        let error = await fetchError(client, url)
        #expect(error?.withoutFirstBytes == .tooLarge(url: url, cap: cap, declared: nil))
        #expect(error?.description.contains("counted after decoding") == true)
    }

    @Test func gzipBombUnderTheCapDecodesWhole() async throws {
        // The same bomb with a cap above 4 MB: decoding is on purpose, not a failure mode.
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/zeros") { _ in
            TestHTTPServer.Response(status: 200, headers: [("Content-Encoding", "gzip")], body: .bytes(Self.gzipBomb))
        }
        let client = HTTPClient(policy: loopbackPolicy { $0.byteCap = 5_000_000 })
        let response = try await client.fetch(server.url("/zeros"))
        #expect(response.body.count == 4_000_000)
        #expect(response.body.allSatisfy { $0 == 0 })
    }

    @Test func bytesOnTheWireCountAgainstTheCapToo() async throws {
        // A gzip stream of empty stored blocks inflates to nothing, so only the bytes as sent can
        // stop it. Chunked, with a small Content-Length that chunked overrides (RFC 9112 6.3), so
        // the up-front Content-Length check passes and the streaming count must catch it.
        let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
        let emptyBlock: [UInt8] = [0x00, 0x00, 0x00, 0xFF, 0xFF]  // BFINAL 0, stored, LEN 0, NLEN
        let stream = header + Array([[UInt8]](repeating: emptyBlock, count: 60_000).joined())  // 300 KB
        var chunked = Data()
        for start in stride(from: 0, to: stream.count, by: 16_384) {
            let chunk = stream[start..<min(stream.count, start + 16_384)]
            chunked += Data((String(chunk.count, radix: 16) + "\r\n").utf8) + Data(chunk) + Data("\r\n".utf8)
        }
        chunked += Data("0\r\n\r\n".utf8)
        let server = try TestHTTPServer()
        defer { server.stop() }
        let body = chunked
        server.route("/empty.gz") { _ in
            TestHTTPServer.Response(
                status: 200, headers: [("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")],
                body: .declaredLength(16, actual: body))
        }
        let cap = 100_000
        let client = HTTPClient(policy: loopbackPolicy { $0.byteCap = cap })
        let url = server.url("/empty.gz")
        #expect(await fetchError(client, url)?.withoutFirstBytes == .tooLarge(url: url, cap: cap, declared: nil))
    }
}
