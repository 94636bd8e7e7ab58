internal import CCurlShim
import Foundation

/// One HTTP GET of one URL, no redirect following: what a worker thread runs.
///
///     let hop = Transfer(url: url, policy: policy, timeout: .seconds(20))
///     let result = hop.perform(on: handle, context: context)
struct Transfer: Sendable {
    let url: String
    let policy: FetchPolicy
    /// What is left of the attempt's deadline.
    let timeout: Duration
    /// Request headers beyond the policy's `Accept` and `User-Agent` (checked by
    /// `FetchPolicy.headerProblem`); empty on a hop to another origin than the URL's.
    var headers: [(name: String, value: String)] = []

    /// The response of a hop libcurl completed (any status).
    struct Response: Sendable {
        var status: Int
        var headers: ResponseHeaders
        /// The 2xx body (empty for any other status).
        var body: FetchBody
    }

    func perform(on handle: EasyHandle, context: TransferContext) -> Result<Response, FetchError> {
        let curl = handle.raw
        curl_easy_reset(curl)
        let userdata = Unmanaged.passUnretained(context).toOpaque()
        var guardian = pa_socket_guard(decide: TransferCallbacks.decide, userdata: userdata)
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        let requestHeaders: UnsafeMutablePointer<curl_slist>?
        switch requestHeaderList() {
        case .success(let list): requestHeaders = list
        case .failure(let error): return .failure(error)
        }
        defer { curl_slist_free_all(requestHeaders) }

        // Through a proxy, libcurl connects to the proxy alone: the guard judges the target
        // here, from its name resolved by this machine, before anything is sent.
        if let problem = policy.proxyProblem {
            return .failure(.transferFailed(url: url, code: Int(CURLE_BAD_FUNCTION_ARGUMENT.rawValue), message: problem))
        }
        let proxy = policy.proxyURL(for: url)
        if proxy != nil {
            if let refused = refusalBeforeProxy() { return .failure(refused) }
            context.viaProxy = true
        }

        let code: CURLcode = withUnsafeMutablePointer(to: &guardian) { guardPointer in
            errorBuffer.withUnsafeMutableBufferPointer { errors in
                var rc = configure(curl, proxy: proxy, userdata: userdata, errors: errors.baseAddress!)
                if rc == CURLE_OK { rc = pa_easy_set_socket_guard(curl, guardPointer) }
                if rc == CURLE_OK, let requestHeaders {
                    rc = pa_easy_setopt_slist(curl, CURLOPT_HTTPHEADER, requestHeaders)
                }
                if rc == CURLE_OK { rc = curl_easy_perform(curl) }
                // Nothing may keep pointers into this frame once perform returns.
                _ = pa_easy_setopt_pointer(curl, CURLOPT_ERRORBUFFER, nil)
                _ = pa_easy_setopt_slist(curl, CURLOPT_HTTPHEADER, nil)
                return rc
            }
        }
        let message = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)

        if code == CURLE_OK {
            if context.isSuccessStatus, !context.tightenCap() {
                context.discardBody()
                return .failure(context.failure ?? .tooLarge(url: url, cap: context.cap, declared: nil, firstBytes: context.head))
            }
            return .success(Response(status: context.status, headers: context.headers, body: context.takeBody()))
        }
        context.discardBody()
        if proxy != nil, let refused = tunnelRefusal(on: handle, code: code) { return .failure(refused) }
        return .failure(error(for: code, message: message, context: context))
    }

    /// The request headers beyond libcurl's own, as the list libcurl reads during perform only
    /// (the caller frees it). Values are checked before any fetch (`FetchPolicy.headerProblem`);
    /// one that got here anyway fails the transfer rather than being sent (or stopping the process).
    private func requestHeaderList() -> Result<UnsafeMutablePointer<curl_slist>?, FetchError> {
        let values = [policy.accept, policy.userAgent].compactMap { $0 } + headers.map(\.value)
        guard values.allSatisfy(FetchPolicy.isHeaderValue) else {
            return .failure(
                .transferFailed(
                    url: url, code: Int(CURLE_BAD_FUNCTION_ARGUMENT.rawValue),
                    message: "a request header holds a control character or a line break"))
        }
        var list: UnsafeMutablePointer<curl_slist>? = nil
        if let accept = policy.accept {
            list = curl_slist_append(list, "Accept: \(accept)")
        }
        for header in headers {
            list = curl_slist_append(list, "\(header.name): \(header.value)")
        }
        return .success(list)
    }

    /// A proxy's 4xx to CONNECT (its policy, or its credentials) as a failure of its own: asking
    /// again gets the same answer, so it is not a broken connection, which would be retried.
    private func tunnelRefusal(on handle: EasyHandle, code: CURLcode) -> FetchError? {
        var connectCode = 0
        guard pa_easy_getinfo_long(handle.raw, CURLINFO_HTTP_CONNECTCODE, &connectCode) == CURLE_OK,
            (400...499).contains(connectCode)
        else { return nil }
        return .transferFailed(
            url: url, code: Int(code.rawValue),
            message: "the proxy answered HTTP \(connectCode) to CONNECT: it refused the tunnel")
    }

    /// The guard's verdict on the target of a proxied transfer: nil lets it go to the proxy.
    /// With private networks allowed nothing is checked (the name need not resolve here).
    private func refusalBeforeProxy() -> FetchError? {
        guard !policy.allowPrivateNetworks else { return nil }
        guard let components = URLComponents(string: url), let host = components.host else {
            return .invalidURL(url: url)
        }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        switch HostResolver.addresses(of: host) {
        case .failure(let failure):
            return .transferFailed(
                url: url, code: Int(CURLE_COULDNT_RESOLVE_HOST.rawValue),
                message: "could not resolve \(host) to check its address before the proxy: \(failure.message)")
        case .success(let addresses):
            for address in addresses {
                if let rule = policy.refusal(address: address, port: port) {
                    return .addressRefused(url: url, address: address.description, rule: rule.description)
                }
            }
            return nil
        }
    }

    private func configure(
        _ curl: UnsafeMutableRawPointer, proxy: String?, userdata: UnsafeMutableRawPointer,
        errors: UnsafeMutablePointer<CChar>
    ) -> CURLcode {
        let longs: [(CURLoption, Int)] = [
            (CURLOPT_NOSIGNAL, 1),
            (CURLOPT_FOLLOWLOCATION, 0),
            (CURLOPT_HTTPGET, 1),
            (CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(policy.connectTimeout.milliseconds))),
            (CURLOPT_TIMEOUT_MS, max(1, Int(timeout.milliseconds))),
            (CURLOPT_LOW_SPEED_LIMIT, max(0, policy.lowSpeedLimit)),
            (CURLOPT_LOW_SPEED_TIME, max(1, Int((policy.lowSpeedTime.milliseconds + 999) / 1000))),
            (CURLOPT_SSL_VERIFYPEER, 1),
            (CURLOPT_SSL_VERIFYHOST, 2),
            (CURLOPT_TCP_KEEPALIVE, 1),
            // Decode Content-Encoding (with CURLOPT_ACCEPT_ENCODING below); see there.
            (CURLOPT_HTTP_CONTENT_DECODING, 1),
        ]
        for (option, value) in longs {
            let rc = pa_easy_setopt_long(curl, option, value)
            guard rc == CURLE_OK else { return rc }
        }
        let strings: [(CURLoption, String)] = [
            (CURLOPT_URL, url),
            (CURLOPT_PROTOCOLS_STR, "http,https"),
            (CURLOPT_REDIR_PROTOCOLS_STR, "http,https"),
            (CURLOPT_USERAGENT, policy.userAgent),
            // The proxy `FetchPolicy.proxyURL(for:)` chose, or none: never libcurl's own reading
            // of the environment, so the guard knows where every socket goes. An https target
            // goes through a CONNECT tunnel (libcurl's default for it).
            (CURLOPT_PROXY, proxy ?? ""),
            (CURLOPT_NOPROXY, ""),
            // Ask for the bytes as stored (`Accept-Encoding: identity`: media is compressed
            // already), but decode a body the server compresses anyway, as the device's
            // URLSession does: libcurl decodes every Content-Encoding it was built with (gzip,
            // deflate, br, zstd) once this option is set, whatever value it sends. The write
            // callback therefore sees decoded bytes and the byte cap counts those, so a small
            // gzip bomb stops at the cap; the bytes on the wire count against it too (progress
            // callback), for a stream that inflates to almost nothing.
            (CURLOPT_ACCEPT_ENCODING, "identity"),
        ]
        for (option, value) in strings {
            let rc = pa_easy_setopt_string(curl, option, value)
            guard rc == CURLE_OK else { return rc }
        }
        var rc = pa_easy_setopt_pointer(curl, CURLOPT_ERRORBUFFER, errors)
        if rc == CURLE_OK { rc = pa_easy_set_write_callback(curl, TransferCallbacks.write, userdata) }
        if rc == CURLE_OK { rc = pa_easy_set_header_callback(curl, TransferCallbacks.header, userdata) }
        if rc == CURLE_OK { rc = pa_easy_set_xferinfo_callback(curl, TransferCallbacks.progress, userdata) }
        return rc
    }

    private func error(for code: CURLcode, message: String, context: TransferContext) -> FetchError {
        if let failure = context.failure { return failure }
        let message = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        switch code {
        case CURLE_ABORTED_BY_CALLBACK:
            return .cancelled(url: url)
        case CURLE_COULDNT_CONNECT where context.refusal != nil:
            let refusal = context.refusal!
            return .addressRefused(url: url, address: refusal.address, rule: refusal.rule.description)
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut(url: url, what: message)
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .unsupportedScheme(url: url, scheme: String(url.prefix { $0 != ":" }))
        case CURLE_URL_MALFORMAT:
            return .invalidURL(url: url)
        case CURLE_COULDNT_CONNECT, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE,
            CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectionFailed(url: url, message: message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS:
            return .tlsFailed(url: url, message: message)
        default:
            return .transferFailed(url: url, code: Int(code.rawValue), message: message)
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
