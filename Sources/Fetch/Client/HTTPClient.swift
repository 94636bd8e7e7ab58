import Foundation

/// The hardened downloader: libcurl on dedicated threads, redirects followed by hand with
/// every hop re-checked, a byte cap while streaming, retries with backoff, and a connect-time
/// SSRF guard.
///
///     let client = HTTPClient(policy: FetchPolicy())
///     let response = try await client.fetch("https://cdn.example.com/cat.jpg")
///
/// Transfers run on `maxConcurrent` threads of its own, never on Swift's cooperative pool;
/// more concurrent `fetch` calls than that wait in a queue. Cancelling the calling task aborts
/// the transfer (the progress callback returns non-zero).
///
/// - Connections: each thread keeps one easy handle for its life and resets it between
///   transfers, so its connection cache reuses keep-alive connections (no CURLSH share).
/// - Redirects: followed here, not by libcurl; each hop's scheme and host are re-checked and
///   every new connection's address goes through the SSRF guard.
/// - Retries: a retryable failure at any hop restarts the chain from `url`, after a jittered
///   exponential backoff or the server's Retry-After, whichever is longer.
/// - Spooling: with `FetchPolicy.spool` set, a body past `spoolThreshold` streams to a file of
///   its own (`FetchResponse.content` is `.file`), within the spool's disk budget; a failed,
///   cancelled or retried attempt removes its file at once.
package final class HTTPClient: Sendable {
    package let policy: FetchPolicy
    private let threads: TransferThreads

    package init(policy: FetchPolicy, maxConcurrent: Int = 16) {
        self.policy = policy
        self.threads = TransferThreads(count: maxConcurrent)
    }

    deinit { threads.shutdown() }

    /// Finishes the transfers in progress, then stops the transfer threads and waits for them
    /// to release their libcurl handles. Call it before the process exits (`exit` runs
    /// OpenSSL's clean-up, which a handle still being torn down on another thread crashes into).
    /// Fetches after it fail at once.
    package func shutdown() { threads.shutdown() }

    /// Downloads `url`, following redirects and retrying as the policy says.
    ///
    /// `whenSpooling` is called (on a transfer thread) each time an attempt's body passes
    /// `FetchPolicy.spoolThreshold` and starts to go to the spool, before it waits for the
    /// spool's budget: a caller holding memory for the body may give it back then.
    ///
    /// `headers` go over the policy's `headers` for this URL (`FetchPolicy.requestHeaders`), on
    /// every hop to the URL's own origin; they must have passed `FetchPolicy.headerProblem`.
    ///
    /// `deadline` bounds the whole call, every attempt and every wait between them: an attempt
    /// gets what is left of it (or `FetchPolicy.deadline`, if less), and a retry whose wait would
    /// end past it is not waited for. Past it the call throws `FetchError.timedOut` with the
    /// origin's last `Retry-After`.
    package func fetch(
        _ url: String, headers: [String: String] = [:], deadline: ContinuousClock.Instant? = nil,
        whenSpooling: (@Sendable () -> Void)? = nil
    ) async throws(FetchError) -> FetchResponse {
        let start = ContinuousClock.now
        var attempt = 0
        var advice: Duration? = nil
        func late(_ what: String) -> FetchError {
            .timedOut(url: url, what: what, retryAfter: advice)
        }
        while true {
            attempt += 1
            if Task.isCancelled { throw .cancelled(url: url) }
            var budget = policy.deadline
            if let deadline {
                let left = deadline - .now
                guard left > .zero else { throw late("the call's deadline passed before attempt \(attempt)") }
                budget = min(budget, left)
            }
            let failure: AttemptFailure
            switch await followRedirects(from: url, headers: headers, budget: budget, whenSpooling: whenSpooling) {
            case .success(let chain):
                return chain.response(url: url, attempts: attempt, elapsed: ContinuousClock.now - start)
            case .failure(let error):
                failure = error
            }
            advice = failure.retryAfter ?? advice
            if case .timedOut(_, let what, nil) = failure.error, advice != nil {
                throw .timedOut(url: failure.error.url, what: what, retryAfter: advice)
            }
            guard failure.error.isRetriedWithinCall, attempt <= policy.maxRetries else { throw failure.error }
            var wait = backoff(retry: attempt)
            if let retryAfter = failure.retryAfter {
                guard retryAfter <= policy.retryAfterLimit else { throw failure.error }
                wait = max(wait, retryAfter)
            }
            if let deadline, ContinuousClock.now + wait >= deadline {
                throw late("the call's deadline comes before the next attempt (\(failure.error.description))")
            }
            do {
                try await Task.sleep(for: wait)
            } catch {
                throw .cancelled(url: url)
            }
        }
    }

    /// Full-jitter exponential backoff: a random wait in [0, base * 2^(retry-1)], at least 10 ms.
    private func backoff(retry: Int) -> Duration {
        let ceiling = policy.retryBaseDelay * (1 << min(retry - 1, 10))
        let millis = max(10, ceiling.milliseconds)
        return .milliseconds(Int64.random(in: 10...millis))
    }

    struct AttemptFailure: Error {
        var error: FetchError
        var retryAfter: Duration?
    }

    struct Chain {
        var finalURL: String
        var hop: Transfer.Response
        var redirects: [String]

        func response(url: String, attempts: Int, elapsed: Duration) -> FetchResponse {
            let disposition = hop.headers["content-disposition"]
            return FetchResponse(
                url: url, finalURL: finalURL, status: hop.status, contentType: hop.headers["content-type"],
                contentDisposition: disposition,
                suggestedFilename: disposition.flatMap(ContentDisposition.filename(from:)),
                content: hop.body, redirects: redirects, attempts: attempts, elapsed: elapsed)
        }
    }

    /// One attempt: the redirect chain from `url`, within `budget`.
    private func followRedirects(
        from url: String, headers extra: [String: String], budget: Duration, whenSpooling: (@Sendable () -> Void)?
    ) async -> Result<Chain, AttemptFailure> {
        let start = ContinuousClock.now
        let headers = policy.requestHeaders(adding: extra)
        let origin = Self.origin(of: url)
        var leftOrigin = false
        var current = url
        var redirects: [String] = []
        while true {
            if let error = check(current) { return .failure(AttemptFailure(error: error)) }
            let remaining = budget - (ContinuousClock.now - start)
            guard remaining > .zero else {
                return .failure(AttemptFailure(error: .timedOut(url: current, what: "deadline of \(budget) passed")))
            }
            let hop: Transfer.Response
            // The caller's headers (credentials, often) go to the URL's own origin only, and not
            // again once the chain has left it (a hop elsewhere could send it back to any path).
            if Self.origin(of: current) != origin { leftOrigin = true }
            let hopHeaders = leftOrigin ? [] : headers
            let transfer = Transfer(url: current, policy: policy, timeout: remaining, headers: hopHeaders)
            switch await run(transfer, whenSpooling: whenSpooling) {
            case .success(let response): hop = response
            case .failure(let error): return .failure(AttemptFailure(error: error))
            }
            switch hop.status {
            case 200...299:
                return .success(Chain(finalURL: current, hop: hop, redirects: redirects))
            case 301, 302, 303, 307, 308:
                guard let location = hop.headers["location"], !location.isEmpty,
                    let next = URL(string: location, relativeTo: URL(string: current))?.absoluteURL.absoluteString
                else {
                    return .failure(
                        AttemptFailure(
                            error: .badRedirect(url: current, status: hop.status, location: hop.headers["location"])))
                }
                guard redirects.count < policy.maxRedirects else {
                    return .failure(AttemptFailure(error: .tooManyRedirects(url: current, limit: policy.maxRedirects)))
                }
                redirects.append(next)
                current = next
            default:
                let retryAfter = hop.headers["retry-after"].flatMap { RetryAfter.delay(from: $0) }
                return .failure(
                    AttemptFailure(
                        error: .httpStatus(url: current, status: hop.status, retryAfter: retryAfter),
                        retryAfter: retryAfter))
            }
        }
    }

    /// Scheme, host and port, lowercased, the port explicit: two URLs with the same origin may
    /// share credentials. Nil for a URL without a host.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        let port = components.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }

    /// The scheme and host rules, checked before every hop.
    private func check(_ url: String) -> FetchError? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            var host = components.host, !host.isEmpty
        else {
            if let scheme = URLComponents(string: url)?.scheme, !["http", "https"].contains(scheme.lowercased()) {
                return .unsupportedScheme(url: url, scheme: scheme)
            }
            return .invalidURL(url: url)
        }
        guard scheme == "http" || scheme == "https" else { return .unsupportedScheme(url: url, scheme: scheme) }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard policy.allows(host: host) else { return .hostNotAllowed(url: url, host: host) }
        return nil
    }

    /// Runs one transfer on a worker thread; task cancellation aborts it.
    private func run(_ transfer: Transfer, whenSpooling: (@Sendable () -> Void)?) async -> Result<
        Transfer.Response, FetchError
    > {
        let context = TransferContext(
            url: transfer.url, policy: policy, cap: policy.byteCap, deadline: .now + transfer.timeout,
            whenSpooling: whenSpooling)
        return await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<Transfer.Response, FetchError>, Never>) in
                threads.submit { handle in
                    guard let handle else {
                        continuation.resume(
                            returning: .failure(
                                .transferFailed(
                                    url: transfer.url, code: 2, message: "libcurl could not start a transfer")))
                        return
                    }
                    continuation.resume(returning: transfer.perform(on: handle, context: context))
                }
            }
        } onCancel: {
            context.cancel()
        }
    }
}
