import Foundation
import MediaTypes
import PushPayloads

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One download to a file with URLSession, inside every bound the extension has: the time budget
/// (the task is cancelled when it runs out), the byte cap of the body's kind (counted as the body
/// streams, tightened from the first bytes; a declared length over it is refused before the
/// body), the redirect limit and the allowed hosts on every hop. What is refused or cut short
/// leaves no file.
///
///     let result = await Download.run(
///         request, to: partFile, limits: limits, until: .now + .seconds(25), budget: .seconds(25))
///     // .success(Downloaded(byteCount: 13275, start: [0xFF, 0xD8, …], …)) or .failure(.timedOut(…))
///
/// The delegate's callbacks (on the session's serial queue), the deadline (a thread of its own,
/// waiting on the state's condition) and the caller's cancellation all end the download through
/// `finish`, which takes effect once: it closes the file, removes it unless the download
/// succeeded, resumes the caller, then cancels the task.
final class Download: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// What bounds a download.
    struct Limits: Sendable {
        /// What files are judged by (`AttachmentDecision.policy(for:)`): its input caps bound the
        /// download.
        var policy: AttachmentPolicy
        var maxRedirects: Int
        var allowedHosts: [String]

        /// The largest body of any kind: the cap before the first bytes say what the body is.
        var largestCap: Int { policy.largestInputCap }

        /// The cap for a body that starts with `start`: its kind's, or the image cap for bytes no
        /// format claims (they will be refused as not media, and are never worth more).
        func cap(forStart start: [UInt8]) -> Int {
            policy.inputCap(for: Sniffer.identify(prefix: start).category)
        }

        /// The refusal for a body over `cap`, by its first bytes (the planner's).
        func refusalOverCap(_ cap: Int, start: [UInt8], bytes: Int?) -> AttachmentRefusal {
            .refused(Planner.refusal(forBodyOver: cap, firstBytes: start, bytes: bytes ?? cap, exact: bytes != nil, policy: policy))
        }
    }

    /// A body written whole to the file.
    struct Downloaded: Sendable {
        var byteCount: Int
        /// The first bytes (up to `Sniffer.identifyPrefixLength`).
        var start: [UInt8]
        var contentType: String?
        /// `X-Attachment-Type-Hint`, which `pushattach serve` sends with what it prepared.
        var serveTypeHint: String?
    }

    private let file: URL
    private let limits: Limits
    private let budget: Duration
    /// Guards the state below; `finish` signals it, which the deadline's thread waits on.
    private let condition = NSCondition()
    private var handle: FileHandle?
    private typealias Continuation = CheckedContinuation<Result<Downloaded, AttachmentRefusal>, Never>
    private var continuation: Continuation?
    private var outcome: Result<Downloaded, AttachmentRefusal>?
    private var session: URLSession?
    private var task: URLSessionDataTask?
    private var status = 0
    private var contentType: String?
    private var serveTypeHint: String?
    private var declaredLength: Int?
    private var byteCount = 0
    private var start: [UInt8] = []
    private var cap: Int
    private var errorBody = Data()
    private var redirects = 0

    private init(file: URL, limits: Limits, budget: Duration) {
        self.file = file
        self.limits = limits
        self.budget = budget
        cap = limits.largestCap
    }

    /// Downloads `request` into `file` (created here, removed again on any failure), finished
    /// by `deadline` or cancelled then (the load's `budget`, counted from its start). Cancelling
    /// the calling task cancels the download.
    static func run(
        _ request: URLRequest, to file: URL, limits: Limits, until deadline: ContinuousClock.Instant,
        budget: Duration
    ) async -> Result<Downloaded, AttachmentRefusal> {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return .failure(.timedOut(budget: budget)) }
        let download = Download(file: file, limits: limits, budget: budget)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                download.start(request, until: Date().addingTimeInterval(remaining.seconds), continuation: continuation)
            }
        } onCancel: {
            download.finish(.failure(.cancelled))
        }
    }

    private func start(
        _ request: URLRequest, until deadline: Date,
        continuation: Continuation
    ) {
        var outcomeBefore: Result<Downloaded, AttachmentRefusal>?
        let task: URLSessionDataTask? = locked {
            guard outcome == nil else {
                // Cancelled before it began.
                outcomeBefore = outcome
                return nil
            }
            self.continuation = continuation
            guard FileManager.default.createFile(atPath: file.path, contents: nil),
                let handle = FileHandle(forWritingAtPath: file.path)
            else { return nil }
            self.handle = handle
            let configuration = URLSessionConfiguration.ephemeral
            // URLSession's own timeouts only back the deadline up.
            configuration.timeoutIntervalForRequest = deadline.timeIntervalSinceNow + 1
            configuration.timeoutIntervalForResource = deadline.timeIntervalSinceNow + 1
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.urlCache = nil
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            queue.name = "PushAttachExtension.Download"
            // The session holds its delegate until `finish` invalidates it.
            let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
            self.session = session
            let task = session.dataTask(with: request)
            self.task = task
            return task
        }
        if let outcomeBefore {
            continuation.resume(returning: outcomeBefore)
            return
        }
        guard let task else {
            finish(.failure(.cannotWrite(path: file.path, detail: "the file could not be created")))
            return
        }
        // The deadline on a thread of its own: dispatch's shared threads may all be busy
        // (another download's data arriving faster than it is written) when it comes.
        let timer = Thread { [self] in
            let expired: Bool = locked {
                while outcome == nil, condition.wait(until: deadline) {}
                return outcome == nil
            }
            if expired { finish(.failure(.timedOut(budget: budget))) }
        }
        timer.name = "PushAttachExtension.Download.deadline"
        timer.start()
        task.resume()
    }

    /// Ends the download with `result`, once: later calls do nothing. The caller is resumed
    /// first; the task's cancellation and the session's invalidation, which FoundationNetworking
    /// runs through its own busy queues, follow on another thread.
    private func finish(_ result: Result<Downloaded, AttachmentRefusal>) {
        let ended: (Continuation?, URLSessionDataTask?, URLSession?)? = locked {
            guard outcome == nil else { return nil }
            outcome = result
            condition.broadcast()
            try? handle?.close()
            handle = nil
            if case .failure = result { try? FileManager.default.removeItem(at: file) }
            defer { (continuation, task, session) = (nil, nil, nil) }
            return (continuation, task, session)
        }
        guard let (continuation, task, session) = ended else { return }
        continuation?.resume(returning: result)
        guard task != nil || session != nil else { return }
        let cleanup = Thread {
            task?.cancel()
            session?.invalidateAndCancel()
        }
        cleanup.name = "PushAttachExtension.Download.cancel"
        cleanup.start()
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let refusal: AttachmentRefusal? = locked {
            status = http?.statusCode ?? 200
            contentType = http?.value(forHTTPHeaderField: "Content-Type")
            serveTypeHint = http?.value(forHTTPHeaderField: "X-Attachment-Type-Hint")
            declaredLength = response.expectedContentLength >= 0 ? Int(response.expectedContentLength) : nil
            guard (200..<300).contains(status), let declaredLength, declaredLength > cap else { return nil }
            return limits.refusalOverCap(cap, start: [], bytes: declaredLength)
        }
        // The handler first: FoundationNetworking traps on a callback answered after its task
        // was cancelled.
        completionHandler(refusal == nil ? .allow : .cancel)
        if let refusal { finish(.failure(refusal)) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let refusal: AttachmentRefusal? = locked {
            guard outcome == nil else { return nil }
            guard (200..<300).contains(status) else {
                // An error's body, kept for the reason `pushattach serve` gives in it: the
                // first 4 KB, which end the download if it is longer.
                errorBody.append(data.prefix(max(0, Self.errorBodyLimit - errorBody.count)))
                guard errorBody.count >= Self.errorBodyLimit else { return nil }
                return .httpStatus(status, url: url(of: dataTask), serverReason: Self.serverReason(errorBody))
            }
            byteCount += data.count
            if start.count < Sniffer.identifyPrefixLength {
                start += data.prefix(Sniffer.identifyPrefixLength - start.count)
                if start.count == Sniffer.identifyPrefixLength { cap = limits.cap(forStart: start) }
            }
            if let declaredLength, declaredLength > cap {
                return limits.refusalOverCap(cap, start: start, bytes: declaredLength)
            }
            if byteCount > cap { return limits.refusalOverCap(cap, start: start, bytes: nil) }
            do {
                try handle?.write(contentsOf: data)
            } catch {
                return .cannotWrite(path: file.path, detail: "\(error)")
            }
            return nil
        }
        if let refusal { finish(.failure(refusal)) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let refusal: AttachmentRefusal? = locked {
            redirects += 1
            guard redirects <= limits.maxRedirects else { return .tooManyRedirects(limit: limits.maxRedirects) }
            return Self.refusal(for: request.url, allowedHosts: limits.allowedHosts)
        }
        // The handler first, as above.
        completionHandler(refusal == nil ? request : nil)
        if let refusal { finish(.failure(refusal)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let result: Result<Downloaded, AttachmentRefusal> = locked {
            let url = url(of: task)
            if let error {
                return .failure(refusal(for: error, url: url))
            }
            guard (200..<300).contains(status) else {
                return .failure(.httpStatus(status, url: url, serverReason: Self.serverReason(errorBody)))
            }
            if start.count < Sniffer.identifyPrefixLength { cap = limits.cap(forStart: start) }
            if byteCount > cap { return .failure(limits.refusalOverCap(cap, start: start, bytes: byteCount)) }
            return .success(
                Downloaded(byteCount: byteCount, start: start, contentType: contentType, serveTypeHint: serveTypeHint))
        }
        finish(result)
    }

    // MARK: Refusals

    /// Why `url` may not be fetched: not http(s), or a host outside `allowedHosts`; nil when it may.
    static func refusal(for url: URL?, allowedHosts: [String]) -> AttachmentRefusal? {
        guard let url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return .unsupportedURL(url?.absoluteString ?? "") }
        return HostPatterns.allows(host: host, patterns: allowedHosts) ? nil : .hostNotAllowed(host: host)
    }

    private func refusal(for error: Error, url: String) -> AttachmentRefusal {
        let code = (error as? URLError)?.code
        if code == .timedOut { return .timedOut(budget: budget) }
        if code == .cancelled { return .cancelled }
        return .downloadFailed(url: url, detail: DisplayText.escaped(error.localizedDescription))
    }

    private func url(of task: URLSessionTask) -> String {
        DisplayText.escaped(task.originalRequest?.url?.absoluteString ?? file.lastPathComponent)
    }

    private static let errorBodyLimit = 4096

    /// The `reason` of a `pushattach serve` error body (`{"error":…,"reason":…}`), when that is
    /// what came back.
    private static func serverReason(_ body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let reason = object["reason"] as? String, !reason.isEmpty
        else { return nil }
        return DisplayText.escaped(reason)
    }
}

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    var seconds: TimeInterval {
        let (whole, fraction) = components
        return TimeInterval(whole) + TimeInterval(fraction) / 1e18
    }
}
