internal import CCurlShim

/// The libcurl behind the fetcher, for `--version` output and bug reports.
///
///     print(FetchVersion.curl)   // "libcurl/7.88.1 OpenSSL/3.0.… zlib/…"
package enum FetchVersion {
    package static var curl: String { String(cString: curl_version()) }
}
