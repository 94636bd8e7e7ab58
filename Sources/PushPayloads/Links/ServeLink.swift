import Foundation

/// A link to `pushattach serve`, recognised in a payload: `…/a/<signature>/<base64url(source)>`
/// with an optional `?type=…&thumb=…` (docs/SERVE.md; `AttachmentLink` in PushAttach writes
/// them). The extension prefers such a link to the origin's URL and names the file after the
/// source it stands for.
///
///     let link = ServeLink(URL(string: "https://attach.example.com/a/kF3…Q/aHR0cHM6Ly9jZG4uZXhhbXBsZS5jb20vY2F0LndlYnA?type=image")!)
///     link?.source     // https://cdn.example.com/cat.webp
///     link?.typeHint   // "image"
///
/// The signature is not checked here (the device has no key; serve checks it): the shape is.
/// The signature segment is 43 base64url characters (an HMAC-SHA256) or `-` (a server that
/// allows unsigned links), and the last segment is base64url without padding, in its one
/// canonical spelling, of an http(s) URL with a host. `/a/` may follow a path prefix, as behind
/// a proxy that serves under one.
package struct ServeLink: Sendable, Hashable {
    /// The link itself: what to download.
    package var url: URL
    /// The media URL the server prepares the attachment from.
    package var source: URL
    /// The sender's type hint (`type=`), percent-decoded.
    package var typeHint: String?
    /// The thumbnail size asked for (`thumb=`), when it is a number.
    package var thumbnailSize: Int?

    /// The link's parts, or nil when `url` does not have the shape of a serve link.
    package init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 4, segments[segments.count - 3] == "a",
            Self.isSignature(segments[segments.count - 2]),
            let bytes = Self.base64URLDecoded(segments[segments.count - 1]),
            let text = String(bytes: bytes, encoding: .utf8), let source = URL(string: text),
            let sourceScheme = source.scheme?.lowercased(), sourceScheme == "http" || sourceScheme == "https",
            source.host?.isEmpty == false
        else { return nil }
        self.url = url
        self.source = source
        for item in components.queryItems ?? [] {
            switch item.name {
            case "type": typeHint = item.value.flatMap { $0.isEmpty ? nil : $0 }
            case "thumb": thumbnailSize = item.value.flatMap { Int($0) }
            default: break
            }
        }
    }

    /// `-`, or the 43 base64url characters of a 32-byte HMAC.
    private static func isSignature(_ segment: Substring) -> Bool {
        segment == "-" || (segment.utf8.count == 43 && base64URLDecoded(segment) != nil)
    }

    /// The bytes of base64url without padding (RFC 4648 §5), or nil when `text` is not that in
    /// its canonical spelling (the unused low bits of the last character must be zero).
    static func base64URLDecoded(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.utf8 {
            guard let value = sextet(character) else { return nil }
            buffer = (buffer << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // 2 or 4 bits left over are padding and must be zero; 6 left over is a lone character.
        guard !text.isEmpty, bits < 6, buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return bytes
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
