import Foundation
import MediaTypes
import SystemSupport

/// The URL scheme of `pushattach serve`: one source URL with the sender's type hint and a
/// thumbnail size, as the path `/a/<signature>/<base64url(source)>?type=…&thumb=…`.
///
///     let signer = AttachmentSigner(key: Array("secret".utf8))
///     let link = AttachmentLink(source: URL(string: "https://cdn.example.com/cat.webp")!, typeHint: "image")
///     link.path(signedBy: signer)   // "/a/kF3…Q/aHR0cHM6Ly9jZG4uZXhhbXBsZS5jb20vY2F0LndlYnA?type=image"
///
/// The signature is base64url without padding of HMAC-SHA256(key, `signedPart`): `/` and the
/// source URL's UTF-8 in base64url without padding, then `?` and the query string when there is
/// one. A server checks it over the query exactly as sent (`AttachmentLink.parse`), so no
/// parameter can be added, dropped or changed without the key.
public struct AttachmentLink: Sendable, Hashable {
    /// The media URL the attachment is prepared from (`http` or `https`).
    public var source: URL
    /// The sender's type hint (`type=`): coarse ("image"), MIME, UTI or an extension.
    public var typeHint: String?
    /// The side of the square box a thumbnail fits in (`thumb=`); nil for the attachment itself.
    public var thumbnailSize: Int?

    /// The thumbnail sides a link may ask for.
    public static let thumbnailSizes = 16...2048

    /// A link to the attachment prepared from `source`.
    public init(source: URL, typeHint: String? = nil, thumbnailSize: Int? = nil) {
        self.source = source
        self.typeHint = typeHint
        self.thumbnailSize = thumbnailSize
    }

    /// The query string (`type=…&thumb=…`, percent-encoded), empty when there is no parameter.
    public var query: String {
        var items: [String] = []
        if let typeHint { items.append("type=" + Self.percentEncoded(typeHint)) }
        if let thumbnailSize { items.append("thumb=\(thumbnailSize)") }
        return items.joined(separator: "&")
    }

    /// What the signature covers: `/<base64url(source)>`, then `?<query>` when there is one.
    public var signedPart: String {
        let encoded = "/" + Base64URL.encode(Array(source.absoluteString.utf8))
        let query = query
        return query.isEmpty ? encoded : encoded + "?" + query
    }

    /// The path (and query) to request: `/a/<signature>/<base64url(source)>[?query]`. With no
    /// signer (a server run with unsigned links allowed) the signature segment is `-`.
    public func path(signedBy signer: AttachmentSigner?) -> String {
        let signedPart = signedPart
        return "/a/" + (signer?.signature(for: signedPart) ?? "-") + signedPart
    }

    /// A link parsed from a request's URI (`/a/<signature>/<source>?<query>`, as sent), with its
    /// signature and the part it covers; `LinkError` says what is wrong.
    ///
    ///     let request = try AttachmentLink.parse(uri: "/a/kF3…Q/aHR0cHM6…?type=image")
    ///     guard signer.isValid(request.signature, for: request.signedPart) else { /* 403 */ }
    public static func parse(uri: String) throws(LinkError) -> SignedRequest {
        let (path, query) = splitQuery(uri)
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 4, segments[0].isEmpty, segments[1] == "a" else {
            throw LinkError(status: 404, reason: "no such route: expected /a/<signature>/<base64url(source URL)>")
        }
        guard let bytes = Base64URL.decode(segments[3]), let text = String(bytes: bytes, encoding: .utf8),
            let source = URL(string: text), let scheme = source.scheme?.lowercased(),
            scheme == "http" || scheme == "https", source.host?.isEmpty == false
        else {
            throw LinkError(
                status: 400, reason: "the last path segment is not an http(s) URL in base64url without padding")
        }
        guard !Self.carriesCredentials(source) else {
            throw LinkError(status: 400, reason: Self.credentialsReason)
        }
        var link = AttachmentLink(source: source)
        try link.apply(query: query)
        let signedPart = "/" + segments[3] + (query.map { $0.isEmpty ? "" : "?" + $0 } ?? "")
        return SignedRequest(link: link, signature: String(segments[2]), signedPart: signedPart)
    }

    /// Whether `source` names a user or a password (`https://user:password@host/…`): `parse`
    /// refuses such a link, and every output shows the URL without them
    /// (`DisplayText.withoutCredentials`).
    public static func carriesCredentials(_ source: URL) -> Bool {
        DisplayText.withoutCredentials(source.absoluteString) != source.absoluteString
    }

    /// Why a source URL with a user name or password is refused, in the library's terms.
    public static let credentialsReason =
        "the source URL carries a user name or password, which every device the link is pushed to would see: "
        + "link to the URL without them and give the server the origin's credentials as request headers "
        + "(AttachmentServer.Configuration.originHeaders)"

    /// A parsed request: its link, the signature it came with and the part that signature covers.
    public struct SignedRequest: Sendable, Hashable {
        /// What the request asks for.
        public var link: AttachmentLink
        /// The signature segment as sent (`-` when unsigned).
        public var signature: String
        /// `/<base64url(source)>` and `?<query>` as sent: what `signature` must sign.
        public var signedPart: String
    }

    /// Why a request's URI is not a link: an HTTP status to answer with and a reason.
    public struct LinkError: Error, Sendable, Hashable, CustomStringConvertible {
        /// 404 for another route, 400 for a link that does not parse.
        public var status: Int
        /// What is wrong.
        public var reason: String
        /// The reason.
        public var description: String { reason }
    }

    private mutating func apply(query: String?) throws(LinkError) {
        guard let query, !query.isEmpty else { return }
        var seen: Set<String> = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard parts.count == 2, let value = String(parts[1]).removingPercentEncoding, !value.isEmpty else {
                throw LinkError(status: 400, reason: "query parameter '\(name)' has no value")
            }
            guard seen.insert(name).inserted else {
                throw LinkError(status: 400, reason: "query parameter '\(name)' is given twice")
            }
            switch name {
            case "type":
                typeHint = value
            case "thumb":
                guard let size = Int(value), Self.thumbnailSizes.contains(size) else {
                    throw LinkError(
                        status: 400,
                        reason: "thumb=\(value) is not a thumbnail side in \(Self.thumbnailSizes.lowerBound)...\(Self.thumbnailSizes.upperBound)")
                }
                thumbnailSize = size
            default:
                throw LinkError(status: 400, reason: "unknown query parameter '\(name)' (expected type or thumb)")
            }
        }
    }

    private static func splitQuery(_ uri: String) -> (path: Substring, query: String?) {
        guard let mark = uri.firstIndex(of: "?") else { return (Substring(uri), nil) }
        return (uri[..<mark], String(uri[uri.index(after: mark)...]))
    }

    /// `value` with everything but RFC 3986's unreserved characters percent-encoded.
    static func percentEncoded(_ value: String) -> String {
        // ASCII only: `CharacterSet.alphanumerics` holds non-ASCII letters too, which a client
        // would send percent-encoded, and the signed text would not match what arrives.
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}

/// Base64url without padding (RFC 4648 §5), as `serve`'s links spell the source URL and signature.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The bytes, or nil when `text` is not base64url without padding in its one canonical
    /// spelling: the unused low bits of the last character (4 of them after 2 characters of a
    /// quantum, 2 after 3) must be zero, or four spellings would decode to the same bytes.
    static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard let last = characters.last, characters.allSatisfy(Self.isAlphabet), characters.count % 4 != 1 else {
            return nil
        }
        let unusedBits: UInt8 = [0, 0, 0b1111, 0b11][characters.count % 4]
        guard Self.value(of: last) & unusedBits == 0 else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map { Array($0) }
    }

    /// The 6-bit value of a character of the alphabet.
    private static func value(of byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        default: 63
        }
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default: return false
        }
    }
}

