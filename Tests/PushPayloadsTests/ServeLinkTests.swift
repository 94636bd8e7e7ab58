import Foundation
import Testing

@testable import PushPayloads

/// Serve links told apart from other URLs by their shape (`…/a/<signature>/<base64url(source)>`).
@Suite("Payload URLs: serve links recognised by their shape")
struct ServeLinkTests {
    /// base64url without padding of "https://cdn.example.com/cat.webp".
    static let catSegment = "aHR0cHM6Ly9jZG4uZXhhbXBsZS5jb20vY2F0LndlYnA"
    static let signature = String(repeating: "A", count: 42) + "E"

    @Test func aSignedLinkGivesItsSourceAndQuery() throws {
        let url = try #require(
            URL(string: "https://attach.example.com/a/\(Self.signature)/\(Self.catSegment)?type=image%2Fwebp&thumb=256")
        )
        let link = try #require(ServeLink(url))
        #expect(link.url == url)
        #expect(link.source.absoluteString == "https://cdn.example.com/cat.webp")
        #expect(link.typeHint == "image/webp")
        #expect(link.thumbnailSize == 256)
    }

    @Test(arguments: [
        "http://127.0.0.1:8080/a/-/aHR0cHM6Ly9jZG4uZXhhbXBsZS5jb20vY2F0LndlYnA",
        "https://edge.example.com/push/a/-/aHR0cHM6Ly9jZG4uZXhhbXBsZS5jb20vY2F0LndlYnA",
    ])
    func anUnsignedLinkOrOneUnderAPrefixIsALink(text: String) throws {
        let url = try #require(URL(string: text))
        let link = try #require(ServeLink(url))
        #expect(link.source.host == "cdn.example.com")
        #expect(link.typeHint == nil)
    }

    @Test(arguments: [
        // Ordinary media URLs, some with an `a` folder.
        "https://cdn.example.com/cat.webp",
        "https://cdn.example.com/a/b/cat.jpg",
        "https://cdn.example.com/a/-/cat.jpg",
        // A signature that is no HMAC's length, or not base64url.
        "https://x.test/a/abc/aHR0cHM6Ly9jZG4uZXhhbXBsZS5jb20vY2F0LndlYnA",
        "https://x.test/a/\(String(repeating: "!", count: 43))/aHR0cHM6Ly9jZG4uZXhhbXBsZS5jb20vY2F0LndlYnA",
        // The source is no http(s) URL with a host: file:///etc/passwd, "https://", text.
        "https://x.test/a/-/ZmlsZTovLy9ldGMvcGFzc3dk",
        "https://x.test/a/-/aHR0cHM6Ly8",
        "https://x.test/a/-/bm90IGEgdXJs",
        // The last character's unused bits set: not the canonical spelling of the source.
        "https://x.test/a/-/aHR0cHM6Ly9jZG4uZXhhbXBsZS5jb20vY2F0LndlYnB",
        // Not http(s) itself.
        "ftp://x.test/a/-/aHR0cHM6Ly9jZG4uZXhhbXBsZS5jb20vY2F0LndlYnA",
    ])
    func otherURLsAreNotLinks(text: String) throws {
        let url = try #require(URL(string: text))
        #expect(ServeLink(url) == nil)
    }

    @Test(arguments: [
        ("", nil as [UInt8]?),
        ("QQ", [0x41]),
        ("QR", nil),  // unused bits set
        ("QUI", [0x41, 0x42]),
        ("QUJ", nil),
        ("QUJD", [0x41, 0x42, 0x43]),
        ("Q", nil),  // a lone character is no byte
        ("-_8", [0xFB, 0xFF]),
        ("QU=", nil),  // padding is not base64url without padding
    ])
    func base64URLDecoding(text: String, bytes: [UInt8]?) {
        #expect(ServeLink.base64URLDecoded(Substring(text)) == bytes)
    }
}
