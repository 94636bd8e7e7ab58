/// Which hosts a download may reach: `example.com` exactly, or `*.example.com` for any of its
/// subdomains (not `example.com` itself). Case and a trailing dot do not matter. The one rule
/// behind `FetchPolicy.allowedHosts` (and so `serve --allow-source`) and the extension's
/// `allowedHosts`.
///
///     HostPatterns.allows(host: "img.example.com", patterns: ["*.example.com"])   // true
///     HostPatterns.allows(host: "example.com", patterns: ["*.example.com"])       // false
///     HostPatterns.allows(host: "anything.test", patterns: [])                    // true
package enum HostPatterns {
    /// Whether `host` matches one of `patterns`; always true when there are none.
    package static func allows(host: String, patterns: [String]) -> Bool {
        guard !patterns.isEmpty else { return true }
        let host = withoutTrailingDot(host.lowercased())
        return patterns.contains { pattern in
            let pattern = withoutTrailingDot(pattern.lowercased())
            if pattern.hasPrefix("*.") {
                let suffix = pattern.dropFirst(1)  // ".example.com"
                return host.hasSuffix(suffix) && host.count > suffix.count
            }
            return host == pattern
        }
    }

    private static func withoutTrailingDot(_ text: String) -> String {
        text.hasSuffix(".") ? String(text.dropLast()) : text
    }
}
