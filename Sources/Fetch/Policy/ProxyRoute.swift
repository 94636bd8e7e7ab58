import Foundation
import MediaTypes

/// Which forward proxy, if any, a request to a URL goes through: `FetchPolicy.proxy`, or with
/// `FetchPolicy.proxyFromEnvironment` the variables curl and most tools read, unless the host is
/// one of `FetchPolicy.noProxy` (or the environment's `no_proxy`).
///
///     var policy = FetchPolicy()
///     policy.proxy = URL(string: "http://proxy.internal:3128")
///     policy.noProxy = ["cdn.internal"]
///     policy.proxyURL(for: "https://img.example.com/a.jpg")   // http://proxy.internal:3128
///     policy.proxyURL(for: "https://a.cdn.internal/a.jpg")    // nil: reached directly
extension FetchPolicy {
    /// The proxy URL a request to `url` goes through, or nil when it goes directly.
    package func proxyURL(for url: String, environment: [String: String]? = nil) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host
        else { return nil }
        var proxy = self.proxy?.absoluteString
        var bypass = noProxy
        if proxy == nil, proxyFromEnvironment {
            let environment = environment ?? ProcessInfo.processInfo.environment
            proxy = Self.environmentProxy(scheme: scheme, environment)
            bypass += (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "").split(separator: ",").map(String.init)
        }
        guard let proxy, !proxy.isEmpty else { return nil }
        return Self.bypasses(host: host, patterns: bypass) ? nil : proxy
    }

    /// The environment's proxy for `scheme`, read as libcurl reads it: `http_proxy` (lower case
    /// only: a CGI program's `HTTP_PROXY` can be set by a request's `Proxy:` header) for http,
    /// `https_proxy` or `HTTPS_PROXY` for https, else `all_proxy` or `ALL_PROXY`.
    static func environmentProxy(scheme: String, _ environment: [String: String]) -> String? {
        let names = scheme == "https" ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]
        for name in names + ["all_proxy", "ALL_PROXY"] {
            if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return value }
        }
        return nil
    }

    /// Whether `host` is reached directly by `patterns`, as libcurl reads `no_proxy`: `*` alone
    /// is every host; `example.com` (or `.example.com`) is that host and its subdomains; an IP
    /// address is that address. Case does not matter; a port after a pattern is ignored.
    static func bypasses(host: String, patterns: [String]) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        for raw in patterns {
            var pattern = raw.trimmingCharacters(in: .whitespaces).lowercased()
            if pattern == "*" { return true }
            if pattern.hasPrefix("[") && pattern.hasSuffix("]") {
                pattern = String(pattern.dropFirst().dropLast())
            } else if IPAddress(pattern) == nil, let colon = pattern.lastIndex(of: ":") {
                pattern = String(pattern[..<colon])
            }
            while pattern.hasPrefix(".") { pattern.removeFirst() }
            if pattern.hasSuffix(".") { pattern.removeLast() }
            guard !pattern.isEmpty else { continue }
            if host == pattern || host.hasSuffix("." + pattern) { return true }
        }
        return false
    }

    /// What is wrong with `proxy`, or nil: it must be an `http` or `https` URL with a host.
    package var proxyProblem: String? {
        guard let proxy else { return nil }
        guard let scheme = proxy.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = proxy.host, !host.isEmpty
        else {
            return "FetchPolicy.proxy must be an http:// or https:// URL with a host (a forward proxy), "
                + "not '\(DisplayText.escaped(DisplayText.withoutCredentials(proxy.absoluteString)))'"
        }
        return nil
    }
}
