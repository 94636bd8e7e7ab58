import Foundation
import PushAttach
import TestSupport
import Testing

@Suite(.tags(.slow), .notInFastTier) struct AttachmentLinkTests {
    let signer = AttachmentSigner(key: Array("Jefe".utf8))

    @Test func signatureIsHMACSHA256OfTheSignedPartInBase64URL() {
        // RFC 4231 test case 2: HMAC-SHA256("Jefe", "what do ya want for nothing?").
        let expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        let bytes = stride(from: 0, to: expected.count, by: 2).map { offset -> UInt8 in
            let start = expected.index(expected.startIndex, offsetBy: offset)
            return UInt8(expected[start..<expected.index(start, offsetBy: 2)], radix: 16)!
        }
        let base64url = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(signer.signature(for: "what do ya want for nothing?") == base64url)
        #expect(signer.isValid(base64url, for: "what do ya want for nothing?"))
        #expect(!signer.isValid(base64url, for: "what do ya want for nothing!"))
    }

    @Test func pathRoundTripsThroughParse() throws {
        let source = URL(string: "https://cdn.example.com/a b/cat.webp?v=2&x=ü")!
        let link = AttachmentLink(source: source, typeHint: "image/webp", thumbnailSize: 256)
        let path = link.path(signedBy: signer)
        #expect(path.hasPrefix("/a/"))
        #expect(!path.split(separator: "?")[0].contains("="), "base64url without padding")
        let parsed = try AttachmentLink.parse(uri: path)
        #expect(parsed.link == link)
        #expect(signer.isValid(parsed.signature, for: parsed.signedPart))
        #expect(parsed.signedPart == link.signedPart)
    }

    @Test func aChangedQueryOrSourceBreaksTheSignature() throws {
        let link = AttachmentLink(source: URL(string: "https://cdn.example.com/cat.jpg")!, typeHint: "image")
        let path = link.path(signedBy: signer)
        for forged in [path + "&thumb=64", path.replacingOccurrences(of: "type=image", with: "type=video")] {
            let parsed = try AttachmentLink.parse(uri: forged)
            #expect(!signer.isValid(parsed.signature, for: parsed.signedPart), "\(forged)")
        }
        let other = AttachmentLink(source: URL(string: "https://cdn.example.com/dog.jpg")!, typeHint: "image")
        let signature = path.split(separator: "/")[1]
        let swapped = "/a/\(signature)" + other.signedPart
        let parsed = try AttachmentLink.parse(uri: swapped)
        #expect(!signer.isValid(parsed.signature, for: parsed.signedPart))
    }

    /// A source with a user name or password would show them to every device the link is pushed
    /// to: refused, with the way to give an origin credentials instead.
    @Test func aSourceWithCredentialsIsRefused() throws {
        let link = AttachmentLink(source: URL(string: "https://u:secret@cdn.example.com/cat.jpg")!)
        #expect(AttachmentLink.carriesCredentials(link.source))
        #expect(!AttachmentLink.carriesCredentials(URL(string: "https://cdn.example.com/a@2x.jpg")!))
        #expect {
            try AttachmentLink.parse(uri: link.path(signedBy: signer))
        } throws: { error in
            guard let error = error as? AttachmentLink.LinkError else { return false }
            return error.status == 400 && error.reason.contains("originHeaders") && !error.reason.contains("secret")
        }
    }

    /// The same 32 bytes spelled with the last character's unused low bits set: refused, so a link
    /// has one valid form (one cache key at a CDN).
    @Test func aSignatureWithItsUnusedLowBitsSetIsRefused() throws {
        let link = AttachmentLink(source: URL(string: "https://cdn.example.com/cat.jpg")!, typeHint: "image")
        let signature = signer.signature(for: link.signedPart)
        #expect(signature.count == 43, "32 bytes: 43 characters, the last one's 2 low bits unused")
        #expect(signer.isValid(signature, for: link.signedPart))
        for variant in Self.otherSpellings(of: signature) {
            #expect(!signer.isValid(variant, for: link.signedPart), "\(variant)")
        }
        // The source segment too: "aHR0cHM6Ly9hLmIvYw" is https://a.b/c; its last character's
        // 4 unused bits set spells the same bytes.
        for variant in Self.otherSpellings(of: "aHR0cHM6Ly9hLmIvYw") {
            #expect(throws: AttachmentLink.LinkError.self) { try AttachmentLink.parse(uri: "/a/sig/" + variant) }
        }
        #expect(try AttachmentLink.parse(uri: "/a/sig/aHR0cHM6Ly9hLmIvYw").link.source.absoluteString == "https://a.b/c")
    }

    /// `text` with its last character's unused low bits set in each other way.
    static func otherSpellings(of text: String) -> [String] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let unused = [0, 0, 0b1111, 0b11][text.count % 4]
        let value = alphabet.firstIndex(of: text.last!)!
        return (1...unused).map { String(text.dropLast()) + String(alphabet[value | $0]) }
    }

    @Test(arguments: [
        ("/b/x/y", 404), ("/a/sig", 404), ("/a/sig/!!!", 400), ("/a/sig/ZmlsZTovLy9ldGMvcGFzc3dk", 400),
        ("/a/sig/aHR0cHM6Ly9hLmIvYw?thumb=1", 400), ("/a/sig/aHR0cHM6Ly9hLmIvYw?thumb=64&thumb=64", 400),
        ("/a/sig/aHR0cHM6Ly9hLmIvYw?size=3", 400), ("/a/sig/aHR0cHM6Ly9hLmIvYw?type=", 400),
    ])
    func malformedLinksAreRefusedWithAStatus(uri: String, status: Int) {
        // ZmlsZTovLy9ldGMvcGFzc3dk is file:///etc/passwd; aHR0cHM6Ly9hLmIvYw is https://a.b/c.
        #expect(throws: AttachmentLink.LinkError.self) { try AttachmentLink.parse(uri: uri) }
        do { _ = try AttachmentLink.parse(uri: uri) } catch { #expect(error.status == status, "\(uri)") }
    }

    @Test func keysIgnoreSpellingsOfOneURLButNotOptions() {
        let a = AttachmentLink(source: URL(string: "HTTPS://CDN.Example.com:443/cat.jpg#x")!)
        let b = AttachmentLink(source: URL(string: "https://cdn.example.com/cat.jpg")!)
        #expect(AttachmentCache.Key(a) == AttachmentCache.Key(b))
        var c = b
        c.thumbnailSize = 64
        #expect(AttachmentCache.Key(c) != AttachmentCache.Key(b))
        #expect(AttachmentCache.Key(b, variant: "q=80") != AttachmentCache.Key(b, variant: "q=85"))
        let path = AttachmentLink(source: URL(string: "https://cdn.example.com/Cat.jpg")!)
        #expect(AttachmentCache.Key(path) != AttachmentCache.Key(b), "the path is case-sensitive")
    }

    @Test func signerReadsAKeyFileWithoutItsTrailingNewline() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("Jefe\n".utf8).write(to: file)
        let fromFile = try AttachmentSigner(keyFile: file)
        #expect(fromFile.signature(for: "x") == signer.signature(for: "x"))
        try Data("\n".utf8).write(to: file)
        #expect(throws: AttachmentError.self) { try AttachmentSigner(keyFile: file) }
        let fromEnvironment = try AttachmentSigner(environment: ["PUSHATTACH_SIGNING_KEY": "Jefe"])
        #expect(fromEnvironment?.signature(for: "x") == signer.signature(for: "x"))
        #expect(try AttachmentSigner(environment: [:]) == nil)
    }
}
