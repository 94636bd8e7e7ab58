import MediaTypes

/// Why a URL could not be fetched. Every case carries the URL it happened at (for a
/// redirect, the hop that failed).
///
///     do { _ = try await AttachmentPreparer.shared.prepare(url, into: folder) } catch {
///         if case .fetch(let cause) = error.underlying {
///             print(cause)   // "refused to connect to 127.0.0.1 (loopback, 127.0.0.0/8): …"
///         }
///     }
public enum FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not an absolute URL with a host.
    case invalidURL(url: String)
    /// Only http and https are fetched.
    case unsupportedScheme(url: String, scheme: String)
    /// The host does not match `FetchPolicy.allowedHosts`.
    case hostNotAllowed(url: String, host: String)
    /// The connect-time guard refused the address the host resolved to.
    case addressRefused(url: String, address: String, rule: String)
    /// More redirects than `FetchPolicy.maxRedirects`.
    case tooManyRedirects(url: String, limit: Int)
    /// A 3xx without a usable Location header.
    case badRedirect(url: String, status: Int, location: String?)
    /// A final status outside 2xx; `retryAfter` is the wait its `Retry-After` header asked for
    /// (delay-seconds or an HTTP-date), when it sent one.
    case httpStatus(url: String, status: Int, retryAfter: Duration? = nil)
    /// The body passed the cap (`declared` is the Content-Length when that alone gave it away).
    /// `firstBytes` are the body's first bytes (up to `FetchError.firstBytesKept`), when any came:
    /// what they are says which cap applied, or that the body was no media at all.
    case tooLarge(url: String, cap: Int, declared: Int?, firstBytes: [UInt8] = [])
    /// The connect timeout, an attempt's deadline, the call's deadline or the low-speed limit
    /// fired; `what` says which. `retryAfter` is the wait the origin's last answer asked for
    /// (its `Retry-After`), when a call ran out of time between retries.
    case timedOut(url: String, what: String, retryAfter: Duration? = nil)
    /// The connection could not be made or broke mid-transfer.
    case connectionFailed(url: String, message: String)
    /// TLS handshake or certificate verification failed.
    case tlsFailed(url: String, message: String)
    /// The task was cancelled and the transfer aborted.
    case cancelled(url: String)
    /// The body could not be written to (or read back from) its spool file.
    case spoolFailed(url: String, failure: SpoolFailure)
    /// The body had to wait for `needed` bytes of the spool's `budget` and the attempt's
    /// deadline passed first.
    case spoolBudgetExhausted(url: String, needed: Int, budget: Int)
    /// libcurl failed in a way not listed above; `code` is its CURLcode.
    case transferFailed(url: String, code: Int, message: String)

    /// How many of a body's first bytes `tooLarge` keeps.
    public static let firstBytesKept = 512

    /// The URL the failure happened at.
    public var url: String {
        switch self {
        case .invalidURL(let url), .unsupportedScheme(let url, _), .hostNotAllowed(let url, _),
            .addressRefused(let url, _, _), .tooManyRedirects(let url, _), .badRedirect(let url, _, _),
            .httpStatus(let url, _, _), .tooLarge(let url, _, _, _), .timedOut(let url, _, _),
            .connectionFailed(let url, _), .tlsFailed(let url, _), .cancelled(let url),
            .transferFailed(let url, _, _), .spoolFailed(let url, _), .spoolBudgetExhausted(let url, _, _):
            return url
        }
    }

    /// Whether the same fetch may succeed if made again later, unchanged: the network or the
    /// origin failed for now. The one rule of the library: `AttachmentError.isRetryable` is this
    /// for a download's error, and the client retries these within a call (`FetchPolicy.maxRetries`)
    /// but for a timeout, which spent the attempt's whole budget.
    ///
    /// - Retryable: a connection that broke or was refused, a DNS failure (a resolver may answer
    ///   later: a queue should still cap its retries), a timeout (the connect timeout, the
    ///   attempt's or the call's deadline, the low-speed limit), HTTP 408, 429 and 5xx, the spool
    ///   budget full for now.
    /// - Not retryable: 501 (not implemented) and 505 (version not supported), which will not
    ///   change; any other 4xx; a refused address, host or scheme; a body over its cap; TLS;
    ///   redirects; the spool's disk failing; a cancellation.
    ///
    ///     FetchError.httpStatus(url: u, status: 503).isRetryable   // true
    ///     FetchError.httpStatus(url: u, status: 501).isRetryable   // false
    public var isRetryable: Bool {
        switch self {
        case .connectionFailed, .timedOut, .spoolBudgetExhausted: true
        case .httpStatus(_, let status, _):
            status == 408 || status == 429 || ((500...599).contains(status) && status != 501 && status != 505)
        // CURLE_COULDNT_RESOLVE_HOST (6): a resolver that failed now may answer later.
        case .transferFailed(_, let code, _): code == 6
        default: false
        }
    }

    /// How long the origin asked to wait before asking again: the `Retry-After` of a 429 or 503
    /// (`httpStatus`), or of the last answer before a call's deadline passed (`timedOut`); nil
    /// when it did not say.
    public var retryAfter: Duration? {
        switch self {
        case .httpStatus(_, _, let after), .timedOut(_, _, let after): after
        default: nil
        }
    }

    /// Whether the client tries again within the call: `isRetryable`, but not a timeout (the
    /// attempt spent its whole deadline; another would only spend the call's).
    package var isRetriedWithinCall: Bool {
        if case .timedOut = self { return false }
        return isRetryable
    }

    /// One line for people, naming settings as the library spells them (`description(naming:)`
    /// with `.library`).
    public var description: String { description(naming: .library) }

    /// The setting that would let this fetch through, if one would: the allowed hosts, private
    /// networks, the spool budget.
    public var setting: Setting? {
        switch self {
        case .hostNotAllowed: .allowedHosts
        case .addressRefused: .allowPrivateNetworks
        case .spoolBudgetExhausted: .spoolBudget
        default: nil
        }
    }

    /// One line for people, with each setting that would let the fetch through spelled by
    /// `names` (the command line passes its flags). Everything in it that came from outside (URLs,
    /// the Location and Content-Type a server sent, libcurl's messages quoting the server) is
    /// escaped with `DisplayText`, so a server cannot write control sequences to a terminal or
    /// forge a line; URLs are shown without their credentials (`DisplayText.withoutCredentials`).
    public func description(naming names: SettingNames) -> String {
        switch self {
        case .invalidURL(let url):
            return "invalid URL \(quotedURL(url)): expected an absolute http or https URL with a host"
        case .unsupportedScheme(let url, let scheme):
            return "unsupported scheme \(quoted(scheme)) in \(shownURL(url)): only http and https are fetched"
        case .hostNotAllowed(let url, let host):
            return
                "host \(shown(host)) of \(shownURL(url)) is not in the allowed hosts; allow the host with \(names[.allowedHosts])"
        case .addressRefused(let url, let address, let rule):
            return "refused to connect to \(address) (\(rule)): private networks are not allowed; "
                + "permit them with \(names[.allowPrivateNetworks]) (fetching \(shownURL(url)))"
        case .tooManyRedirects(let url, let limit):
            return "too many redirects (more than \(limit)) at \(shownURL(url)); the server may be looping"
        case .badRedirect(let url, let status, let location):
            return
                "redirect \(status) from \(shownURL(url)) has \(location.map { "an unusable Location \(quotedURL($0))" } ?? "no Location")"
        case .httpStatus(let url, let status, _):
            return "HTTP \(status) from \(shownURL(url)); only 2xx is accepted"
        case .tooLarge(let url, let cap, let declared, _):
            if let declared {
                return "\(shownURL(url)) declares \(declared) bytes, over the \(cap)-byte cap; the download was refused"
            }
            return "\(shownURL(url)) sent more than the \(cap)-byte cap (counted after decoding); the download was aborted"
        case .timedOut(let url, let what, _):
            return "\(shownURL(url)) timed out: \(shown(what))"
        case .connectionFailed(let url, let message):
            return "connection to \(shownURL(url)) failed: \(shown(message))"
        case .tlsFailed(let url, let message):
            return "TLS with \(shownURL(url)) failed: \(shown(message)); check the server's certificate"
        case .cancelled(let url):
            return "fetching \(shownURL(url)) was cancelled"
        case .spoolFailed(let url, let failure):
            return "cannot spool the body of \(shownURL(url)) to disk: \(shown(failure.description)); "
                + "free disk space where the spool folder is"
        case .spoolBudgetExhausted(let url, let needed, let budget):
            return "the body of \(shownURL(url)) waited for \(needed) bytes of the \(budget)-byte spool budget until "
                + "the deadline; raise \(names[.spoolBudget]) or lower \(names[.maxInFlight])"
        case .transferFailed(let url, let code, let message):
            return "fetching \(shownURL(url)) failed (curl error \(code)): \(shown(message))"
        }
    }

    /// `description(naming:)` for a face that shows the URL beside the reason (no "(fetching …)"
    /// after a refused address) and, with `advising: false`, says the setting that would let a
    /// refused address through once for many lines rather than on each.
    ///
    ///     error.description(naming: names, mentioningURL: false, advising: false)
    ///     // "refused to connect to 127.0.0.1 (loopback, 127.0.0.0/8): private networks are not allowed"
    public func description(naming names: SettingNames, mentioningURL: Bool, advising: Bool = true) -> String {
        guard case .addressRefused(let url, let address, let rule) = self else { return description(naming: names) }
        var text = "refused to connect to \(address) (\(rule)): private networks are not allowed"
        if advising { text += "; permit them with \(names[.allowPrivateNetworks])" }
        if mentioningURL { text += " (fetching \(shownURL(url)))" }
        return text
    }

    private func quoted(_ text: String) -> String { "\"\(shown(text))\"" }
    private func shown(_ text: String) -> String { DisplayText.escaped(text) }
    /// A URL as messages show it: without the credentials it may carry, escaped.
    private func shownURL(_ url: String) -> String { shown(DisplayText.withoutCredentials(url)) }
    private func quotedURL(_ url: String) -> String { "\"\(shownURL(url))\"" }
}
