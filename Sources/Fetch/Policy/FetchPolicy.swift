import Foundation
import MediaTypes
import PushPayloads

/// What a download may fetch, and how long and how much it may take: the address guard,
/// allowed hosts, redirects, deadlines, retries and where large bodies go.
///
///     var configuration = AttachmentPreparer.Configuration.default
///     configuration.fetch.allowedHosts = ["*.cdn.example.com"]
///     configuration.fetch.deadline = .seconds(10)
///
/// The byte caps (`byteCap`) are set by the preparer from Apple's rules and its image download
/// cap; the other fields are used as given.
public struct FetchPolicy: Sendable {
    /// Connect to loopback, RFC 1918, link-local and other non-public addresses. Off by
    /// default: the address guard refuses them at connect time, on every redirect hop, and the
    /// download fails with `FetchError.addressRefused`.
    public var allowPrivateNetworks = false
    /// Host patterns a URL (and every redirect hop) must match: `example.com` exactly, or
    /// `*.example.com` for any subdomain. Empty means any host.
    public var allowedHosts: [String] = []
    /// The forward proxy every request goes through (`http://proxy.internal:3128`, or an
    /// `https://` proxy); nil (the default) connects directly, unless `proxyFromEnvironment`.
    /// An `http` URL is asked of the proxy as a whole URL; an `https` one goes through a tunnel
    /// the proxy opens (`CONNECT`), so the proxy sees the host but not the request.
    ///
    /// The address guard still applies to the target: with `allowPrivateNetworks` off, the
    /// target's host is resolved here and a private address is refused (`FetchError.addressRefused`)
    /// before anything is sent to the proxy; the proxy's own address may be private (it usually
    /// is). What is left: the proxy resolves the name again, so a name that answers with a
    /// public address here and a private one there (DNS rebinding) reaches the private one.
    /// Close that at the proxy, with a proxy that refuses private destinations (Squid: an
    /// `http_access deny` for a `dst` ACL of the private ranges; Smokescreen refuses them by
    /// default). A name that does not
    /// resolve here fails the fetch (the guard cannot judge it): where only the proxy can
    /// resolve names, turn `allowPrivateNetworks` on and let the proxy be the guard.
    ///
    ///     policy.proxy = URL(string: "http://10.0.0.8:3128")
    ///     policy.noProxy = ["cdn.internal"]
    public var proxy: URL? = nil
    /// Hosts reached directly, not through the proxy, as `no_proxy` reads: `example.com` (or
    /// `.example.com`) is that host and its subdomains, an IP address that address, `*` every
    /// host. A host reached directly goes through the connect-time guard as without a proxy.
    public var noProxy: [String] = []
    /// Take the proxy from the environment when `proxy` is nil, as curl does: `http_proxy` for
    /// http URLs, `https_proxy` (or `HTTPS_PROXY`) for https, else `all_proxy` (`ALL_PROXY`);
    /// `no_proxy` (`NO_PROXY`) adds to `noProxy`. Off by default: a library does not follow the
    /// environment unless told to.
    public var proxyFromEnvironment = false
    /// Redirects followed before failing with `FetchError.tooManyRedirects`. Default 5.
    public var maxRedirects = 5
    /// The longest one TCP connection attempt may take. Default 5 s.
    public var connectTimeout: Duration = .seconds(5)
    /// The wall-clock budget of one attempt: the whole redirect chain, every hop's connect and
    /// body included. Each retry gets a fresh budget (backoff waits are outside it), so the worst
    /// case for one URL is `(maxRetries + 1) * deadline` plus the waits.
    public var deadline: Duration = .seconds(25)
    /// Abort when the transfer is slower than this many bytes per second for `lowSpeedTime`
    /// (fails with `FetchError.timedOut`). Default 1024.
    public var lowSpeedLimit = 1024
    /// How long a transfer may stay under `lowSpeedLimit` before it is aborted. Default 10 s.
    public var lowSpeedTime: Duration = .seconds(10)
    /// The most body bytes kept: the largest category's cap. Content-Length above it is refused
    /// up front; a body that streams past it is aborted whatever Content-Length said (both fail
    /// with `FetchError.tooLarge`). An `AttachmentPreparer` sets it from its rules.
    public var byteCap = 50_000_000
    /// Given the first bytes of a body (at least 64, or all of a shorter body), a tighter cap
    /// once the type is known; nil keeps `byteCap`. A larger answer never raises the cap.
    package var tightenCap: (@Sendable ([UInt8]) -> Int?)? = nil
    /// A body longer than this many bytes is written to disk as it streams (an
    /// `AttachmentPreparer` spools into the folder's `.spool/`) instead of held in memory; the
    /// bytes up to here are held in memory first. Default 1 MB.
    public var spoolThreshold = 1_000_000
    /// Where bodies over `spoolThreshold` go, with the disk budget they share; nil keeps every
    /// body in memory (up to `byteCap`).
    package var spool: Spool? = nil
    /// Retries after the first attempt, on what may pass (`FetchError.isRetryable`: a broken
    /// connection, a DNS failure, 408, 429, 5xx but 501 and 505) but a timeout, which spent the
    /// attempt's whole deadline.
    public var maxRetries = 2
    /// The longest Retry-After honoured; a server asking for more fails without a retry.
    public var retryAfterLimit: Duration = .seconds(10)
    /// The first backoff; doubled per retry, with full jitter.
    public var retryBaseDelay: Duration = .milliseconds(200)
    /// The `User-Agent` header sent with every request: by default
    /// `PushAttach/<version> (+rich push attachment preparer)`. Must be one line.
    public var userAgent = "PushAttach/\(ReleaseVersion.current) (+rich push attachment preparer)"
    /// The `Accept` header: by default the formats iOS shows as attachments first, then WebP
    /// (transcoded here), then any other media, so a CDN that negotiates formats sends the JPEG
    /// it holds rather than AVIF or WebP (`FetchPolicy.defaultAccept`). Nil sends libcurl's
    /// `Accept: */*`. Must be one line.
    public var accept: String? = FetchPolicy.defaultAccept
    /// Request headers sent with every request to the URL's own origin (scheme, host and port):
    /// `["Authorization": "Bearer …"]` for a private CDN, `["X-Tenant": "a"]`. Since they go to
    /// whatever host a URL names, they need `allowedHosts` (the hosts that may receive them).
    /// A redirect to another origin is followed without them, and once a chain has left the
    /// origin they are not sent again, so a credential never reaches a host it was not meant
    /// for. Over plain `http` they travel in clear text, as the URL does. Names are HTTP tokens; values one line (no CR, LF or NUL). `Host`,
    /// `Content-Length`, `Transfer-Encoding`, `Connection` and `Accept-Encoding` are the
    /// client's own and are refused, as are `User-Agent` and `Accept` (set `userAgent` and
    /// `accept`). A request can add to or override these (`AttachmentRequest.headers`).
    /// Checked before anything is fetched (`headerProblem(adding:)`).
    public var headers: [String: String] = [:]
    /// Exact `address:port` pairs (`127.0.0.1:8080`, `[::1]:8080`) the SSRF guard lets through
    /// even when private networks are refused. For tests that need a first hop on loopback.
    package var allowedPrivateAddressesForTesting: Set<String> = []

    /// The defaults: private networks refused, any host, 5 redirects, a 25 s deadline per
    /// attempt, 2 retries, bodies over 1 MB streamed to disk.
    public init() {}

    /// The default `accept`, from `AppleRules`:
    ///
    ///     image/jpeg, image/png, image/gif, audio/mpeg, audio/wav, audio/aiff, audio/mp4,
    ///     video/mp4, video/x-msvideo, video/mpeg, image/webp;q=0.8, image/*;q=0.5,
    ///     audio/*;q=0.5, video/*;q=0.5, */*;q=0.1
    public static let defaultAccept: String = {
        let accepted = MediaFormat.allCases.filter(AppleRules.acceptedFormats.contains).map(\.mimeType)
        // HEIC/HEIF and AVIF are transcoded too, but not asked for: image CDNs switch to AVIF on
        // seeing it in Accept (whatever its q), and a JPEG passes through where an AVIF costs a
        // slow decode and a second lossy encode.
        let transcoded = MediaFormat.allCases.filter {
            AppleRules.transcodableFormats.contains($0) && ![.heic, .heif, .avif].contains($0)
        }.map { "\($0.mimeType);q=0.8" }
        let wildcards = ["image/*;q=0.5", "audio/*;q=0.5", "video/*;q=0.5", "*/*;q=0.1"]
        return (accepted + transcoded + wildcards).joined(separator: ", ")
    }()

    /// Header names the client sets itself, or that have a setting of their own.
    static let reservedHeaders: [String: String] = [
        "host": "the client sets it from the URL",
        "content-length": "the client's own",
        "transfer-encoding": "the client's own",
        "connection": "the client's own",
        "accept-encoding": "the client asks for the bytes as stored (identity)",
        "user-agent": "set FetchPolicy.userAgent",
        "accept": "set FetchPolicy.accept",
    ]

    /// What is wrong with the headers this policy sends (`headers`, then `extra` over them,
    /// `userAgent` and `accept`), or nil when they can be sent. A value with a control
    /// character or a line break of any kind would let whoever chose it add headers of its own
    /// (or stop the transfer), so it is refused, never cleaned. `headers` (the configuration's,
    /// sent to every URL's origin) need `allowedHosts`: without it a push naming any host would
    /// receive them. A request's own (`extra`) go with the URL the caller chose.
    ///
    ///     policy.headers["X-Bad"] = "a\r\nHost: evil"
    ///     policy.headerProblem()   // "FetchPolicy.headers: the value of X-Bad holds a control character or a line break"
    public func headerProblem(adding extra: [String: String] = [:]) -> String? {
        if !Self.isHeaderValue(userAgent) {
            return "FetchPolicy.userAgent holds a control character or a line break; it must be one line of text"
        }
        if let accept, !Self.isHeaderValue(accept) {
            return "FetchPolicy.accept holds a control character or a line break; it must be one line of text"
        }
        if !headers.isEmpty, allowedHosts.isEmpty {
            return "FetchPolicy.headers are sent to the origin of every URL fetched: set FetchPolicy.allowedHosts to the hosts that may receive them (or give them per request)"
        }
        for (source, headers) in [("FetchPolicy.headers", self.headers), ("the request's headers", extra)] {
            var seen: Set<String> = []
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
                let shown = DisplayText.escaped(name)
                guard !name.isEmpty, name.unicodeScalars.allSatisfy(Self.isTokenCharacter) else {
                    return "\(source): '\(shown)' is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)"
                }
                if let reason = Self.reservedHeaders[name.lowercased()] {
                    return "\(source): \(shown) cannot be set here: \(reason)"
                }
                guard seen.insert(name.lowercased()).inserted else {
                    return "\(source): \(shown) is given twice (header names do not differ by case)"
                }
                if value.trimmingCharacters(in: .whitespaces).isEmpty {
                    return "\(source): the value of \(shown) is empty (libcurl would drop the header)"
                }
                if !Self.isHeaderValue(value) {
                    return "\(source): the value of \(shown) holds a control character or a line break"
                }
            }
        }
        return nil
    }

    /// The headers a request to `url`'s origin carries: `headers`, with `extra`'s over them
    /// (names compared without case), in name order.
    package func requestHeaders(adding extra: [String: String]) -> [(name: String, value: String)] {
        var merged: [String: (name: String, value: String)] = [:]
        for (name, value) in headers { merged[name.lowercased()] = (name, value) }
        for (name, value) in extra { merged[name.lowercased()] = (name, value) }
        return merged.sorted { $0.key < $1.key }.map(\.value)
    }

    /// Whether `value` can be a header's value as it is: no C0 control but tab, no DEL, no C1
    /// control, no line or paragraph separator (what `Character.isNewline` also counts). The
    /// client checks the same before it sends (`Transfer`), so a value this lets through never
    /// stops a transfer.
    package static func isHeaderValue(_ value: String) -> Bool {
        !value.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
                || scalar == "\u{2028}" || scalar == "\u{2029}"
        }
    }

    /// RFC 9110 tchar.
    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": true
        case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": true
        default: false
        }
    }

    /// Whether `host` matches `allowedHosts` (always true when that is empty).
    ///
    ///     policy.allowedHosts = ["*.example.com"]
    ///     policy.allows(host: "img.example.com")   // true
    ///     policy.allows(host: "example.com")       // false
    public func allows(host: String) -> Bool { HostPatterns.allows(host: host, patterns: allowedHosts) }

    /// The SSRF verdict for a connection to `address` on `port`: nil allows, a rule refuses.
    package func refusal(address: IPAddress, port: Int) -> AddressRule? {
        guard !allowPrivateNetworks, let rule = AddressPolicy.classify(address) else { return nil }
        let key: String
        switch address {
        case .v4: key = "\(address):\(port)"
        case .v6: key = "[\(address)]:\(port)"
        }
        return allowedPrivateAddressesForTesting.contains(key) ? nil : rule
    }
}
