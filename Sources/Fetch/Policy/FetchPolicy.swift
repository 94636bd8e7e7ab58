import MediaTypes

/// What the HTTP client may fetch, and how long and how much it may take.
///
///     var policy = FetchPolicy()
///     policy.allowedHosts = ["*.cdn.example.com"]
///     policy.byteCap = 10_000_000
///     let client = HTTPClient(policy: policy)
public struct FetchPolicy: Sendable {
    /// Connect to loopback, RFC 1918, link-local and other non-public addresses
    /// (`--allow-private-networks`). Off by default: the SSRF guard refuses them at connect time.
    public var allowPrivateNetworks = false
    /// Host patterns a URL (and every redirect hop) must match: `example.com` exactly, or
    /// `*.example.com` for any subdomain. Empty means any host.
    public var allowedHosts: [String] = []
    /// Redirects followed before failing with `tooManyRedirects`.
    public var maxRedirects = 5
    /// Per TCP connection attempt.
    public var connectTimeout: Duration = .seconds(5)
    /// The wall-clock budget of one attempt: the whole redirect chain, every hop's connect and
    /// body included. Each retry gets a fresh budget (backoff waits are outside it), so the worst
    /// case for one URL is `(maxRetries + 1) * deadline` plus the waits.
    public var deadline: Duration = .seconds(25)
    /// Abort when the transfer is slower than `lowSpeedLimit` bytes/s for `lowSpeedTime`.
    public var lowSpeedLimit = 1024
    public var lowSpeedTime: Duration = .seconds(10)
    /// The most body bytes kept: the largest category's cap. Content-Length above it is refused
    /// up front; a body that streams past it is aborted whatever Content-Length said.
    public var byteCap = 50_000_000
    /// Given the first bytes of a body (at least 64, or all of a shorter body), a tighter cap
    /// once the type is known; nil keeps `byteCap`. A larger answer never raises the cap.
    public var tightenCap: (@Sendable ([UInt8]) -> Int?)? = nil
    /// A body longer than this many bytes goes to `spool` (when set) instead of memory, written
    /// as it streams; the bytes up to here are held in memory first. Default 1 MB.
    public var spoolThreshold = 1_000_000
    /// Where bodies over `spoolThreshold` go, with the disk budget they share; nil keeps every
    /// body in memory (up to `byteCap`).
    public var spool: Spool? = nil
    /// Retries after the first attempt, on connection errors, 408, 429 and 5xx.
    public var maxRetries = 2
    /// The longest Retry-After honoured; a server asking for more fails without a retry.
    public var retryAfterLimit: Duration = .seconds(10)
    /// The first backoff; doubled per retry, with full jitter.
    public var retryBaseDelay: Duration = .milliseconds(200)
    public var userAgent = "PushAttach/0.1 (+rich push attachment preparer)"
    /// The `Accept` header: by default the formats iOS shows as attachments first, then WebP
    /// (transcoded here), then any other media, so a CDN that negotiates formats sends the JPEG
    /// it holds rather than AVIF or WebP (`FetchPolicy.defaultAccept`). Nil sends libcurl's
    /// `Accept: */*`. Must be one line.
    public var accept: String? = FetchPolicy.defaultAccept
    /// Exact `address:port` pairs (`127.0.0.1:8080`, `[::1]:8080`) the SSRF guard lets through
    /// even when private networks are refused. For tests that need a first hop on loopback.
    public var allowedPrivateAddressesForTesting: Set<String> = []

    public init() {}

    /// The default `accept`, from `AppleRules`:
    ///
    ///     image/jpeg, image/png, image/gif, audio/mpeg, audio/wav, audio/aiff, audio/mp4,
    ///     video/mp4, video/x-msvideo, video/mpeg, image/webp;q=0.8, image/*;q=0.5,
    ///     audio/*;q=0.5, video/*;q=0.5, */*;q=0.1
    public static let defaultAccept: String = {
        let accepted = MediaFormat.allCases.filter(AppleRules.acceptedFormats.contains).map(\.mimeType)
        let transcoded = MediaFormat.allCases.filter(AppleRules.transcodableFormats.contains).map {
            "\($0.mimeType);q=0.8"
        }
        let wildcards = ["image/*;q=0.5", "audio/*;q=0.5", "video/*;q=0.5", "*/*;q=0.1"]
        return (accepted + transcoded + wildcards).joined(separator: ", ")
    }()

    /// Whether `host` matches `allowedHosts` (always true when that is empty).
    ///
    ///     policy.allowedHosts = ["*.example.com"]
    ///     policy.allows(host: "img.example.com")   // true
    ///     policy.allows(host: "example.com")       // false
    public func allows(host: String) -> Bool {
        guard !allowedHosts.isEmpty else { return true }
        let host = host.lowercased().trimmingSuffixDot()
        return allowedHosts.contains { pattern in
            let pattern = pattern.lowercased().trimmingSuffixDot()
            if pattern.hasPrefix("*.") {
                let suffix = pattern.dropFirst(1)  // ".example.com"
                return host.hasSuffix(suffix) && host.count > suffix.count
            }
            return host == pattern
        }
    }

    /// The SSRF verdict for a connection to `address` on `port`: nil allows, a rule refuses.
    public func refusal(address: IPAddress, port: Int) -> AddressRule? {
        guard !allowPrivateNetworks, let rule = AddressPolicy.classify(address) else { return nil }
        let key: String
        switch address {
        case .v4: key = "\(address):\(port)"
        case .v6: key = "[\(address)]:\(port)"
        }
        return allowedPrivateAddressesForTesting.contains(key) ? nil : rule
    }
}

extension String {
    fileprivate func trimmingSuffixDot() -> String { hasSuffix(".") ? String(dropLast()) : self }
}
