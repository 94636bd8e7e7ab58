#if FUZZING
    import Foundation
    @testable import Fetch  // the header parsers are internal; fuzz builds are debug builds (-enable-testing)

    /// The response handling's own parsing: header lines as libcurl delivers them, Content-Length,
    /// Retry-After, and the address classifier on every line (as a host or IP literal).
    let httpHarness = Harness(name: "http") { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        var headers = ResponseHeaders()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            headers.consume(line: String(line) + "\n")
            _ = AddressPolicy.classify(String(line))
            if let address = IPAddress(String(line)) { _ = AddressPolicy.classify(address) }
        }
        _ = headers.contentLength
        if let retry = headers["retry-after"] { _ = RetryAfter.delay(from: retry, now: Date(timeIntervalSince1970: 1e9)) }
        _ = RetryAfter.delay(from: text, now: Date(timeIntervalSince1970: 1e9))
        _ = IPAddress(bytes: bytes.prefix(16))
    }
#endif
