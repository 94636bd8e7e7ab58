import Foundation

/// The state of one libcurl transfer (one hop of one attempt), shared with the C callbacks.
///
///     let context = TransferContext(url: url, policy: policy, cap: policy.byteCap, deadline: .now + .seconds(20))
///     // pass Unmanaged.passUnretained(context).toOpaque() as the callbacks' userdata
///
/// The callbacks all run on the worker thread inside `curl_easy_perform`; only `cancel()`
/// comes from elsewhere, so it alone is behind a lock.
///
/// A 2xx body is held in memory up to `FetchPolicy.spoolThreshold`; past it (with a `Spool`,
/// and once the cap is tightened from the first bytes) what was held is flushed to a new spool
/// file and the rest is written there as it arrives. The cap counts every byte either way.
final class TransferContext: @unchecked Sendable {
    let url: String
    let policy: FetchPolicy
    private(set) var cap: Int
    private var capTightened = false

    private(set) var status = 0
    private(set) var headers = ResponseHeaders()
    private(set) var body: [UInt8] = []
    private(set) var received = 0
    /// The first bytes of a 2xx body (up to `FetchError.firstBytesKept`), kept for the error of a
    /// body over the cap.
    private(set) var head: [UInt8] = []
    /// The attempt's deadline: how long a spool reservation may wait.
    let deadline: ContinuousClock.Instant
    /// Told once when the body starts to go to a spool file (`HTTPClient.fetch(_:whenSpooling:)`).
    let whenSpooling: (@Sendable () -> Void)?
    /// The spool file the body is going to, once it passed the threshold.
    private var spoolWriter: SpoolWriter?
    /// A failure a callback decided on (the byte cap); wins over libcurl's generic code.
    private(set) var failure: FetchError?
    /// Whether the transfer goes through a proxy: every socket it opens is the proxy's, whose
    /// address the guard lets through (the target was judged before, `Transfer`).
    var viaProxy = false
    /// The first address the socket guard refused.
    private(set) var refusal: (address: String, rule: AddressRule)?

    private let cancelLock = NSLock()
    private var cancelled = false

    init(
        url: String, policy: FetchPolicy, cap: Int, deadline: ContinuousClock.Instant = .now + .seconds(3600),
        whenSpooling: (@Sendable () -> Void)? = nil
    ) {
        self.url = url
        self.policy = policy
        self.cap = cap
        self.deadline = deadline
        self.whenSpooling = whenSpooling
    }

    deinit { spoolWriter?.discard() }

    var isSuccessStatus: Bool { (200...299).contains(status) }

    func cancel() {
        cancelLock.withLock { cancelled = true }
        policy.spool?.wake()
    }
    var isCancelled: Bool { cancelLock.withLock { cancelled } }

    /// One header line; false aborts the transfer.
    func header(line: String) -> Bool {
        if line.hasPrefix("HTTP/") {
            // "HTTP/1.1 200 OK" or "HTTP/2 200": a new response starts.
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
        }
        headers.consume(line: line)
        if isSuccessStatus, line.lowercased().hasPrefix("content-length:"), let declared = headers.contentLength,
            declared > cap
        {
            failure = .tooLarge(url: url, cap: cap, declared: declared)
            return false
        }
        return true
    }

    /// A chunk of the body, after libcurl decoded any Content-Encoding; false aborts the
    /// transfer. The cap counts these decoded bytes. Only a 2xx body is kept; any other is
    /// counted (so an endless error page is still capped) and dropped.
    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        if isSuccessStatus, head.count < FetchError.firstBytesKept {
            head.append(contentsOf: chunk.prefix(FetchError.firstBytesKept - head.count))
        }
        received += chunk.count
        if received > cap {
            failure = .tooLarge(url: url, cap: cap, declared: nil, firstBytes: head)
            dropBody()
            return false
        }
        guard isSuccessStatus else { return true }
        if let spoolWriter {
            do throws(SpoolFailure) { try spoolWriter.write(chunk) } catch {
                failure = .spoolFailed(url: url, failure: error)
                dropBody()
                return false
            }
            return true
        }
        if body.isEmpty, let declared = headers.contentLength, declared > 0 {
            // One allocation for what is to come (up to the part held before spooling, plus a
            // chunk), not a series of doublings that can reach twice the body.
            let limit = policy.spool == nil ? cap : policy.spoolThreshold + 65536
            body.reserveCapacity(min(declared, limit))
        }
        body.append(contentsOf: chunk)
        if !capTightened, body.count >= 64, !tightenCap() { return false }
        if capTightened, body.count > policy.spoolThreshold, let spool = policy.spool { return startSpooling(spool) }
        return true
    }

    /// Reserves the cap in the spool's budget (waiting in line, up to the deadline), then
    /// moves the bytes held so far to a new spool file; false aborts the transfer.
    private func startSpooling(_ spool: Spool) -> Bool {
        whenSpooling?()
        guard let reservation = spool.reserve(cap, until: deadline, isCancelled: { isCancelled }) else {
            // Cancelled: libcurl's abort code says so. Otherwise the deadline passed in line.
            if !isCancelled {
                failure = .spoolBudgetExhausted(url: url, needed: min(cap, spool.budget), budget: spool.budget)
            }
            dropBody()
            return false
        }
        do throws(SpoolFailure) {
            let writer = try SpoolWriter(spool: spool, reservation: reservation)
            spoolWriter = writer
            let flushed: Result<Void, SpoolFailure> = body.withUnsafeBytes { raw in
                Result { () throws(SpoolFailure) in try writer.write(raw) }
            }
            try flushed.get()
        } catch {
            failure = .spoolFailed(url: url, failure: error)
            dropBody()
            return false
        }
        body = []
        return true
    }

    /// Frees the bytes held and removes any spool file.
    private func dropBody() {
        body = []
        spoolWriter?.discard()
        spoolWriter = nil
    }

    /// Body bytes received so far as sent (before decoding), from the progress callback; false
    /// aborts the transfer: on cancellation, or when they pass the cap, as a compressed stream
    /// that inflates to nearly nothing would otherwise only be stopped by the deadline.
    func progress(wireBytes: Int) -> Bool {
        if isCancelled { return false }
        if wireBytes > cap {
            if failure == nil { failure = .tooLarge(url: url, cap: cap, declared: nil, firstBytes: head) }
            dropBody()
            return false
        }
        return true
    }

    /// Applies `FetchPolicy.tightenCap` once to the first bytes; false when they already pass it.
    func tightenCap() -> Bool {
        guard !capTightened else { return received <= cap }
        capTightened = true
        if let tighten = policy.tightenCap, let tighter = tighten(Array(body.prefix(4096))),
            tighter < cap
        {
            cap = max(0, tighter)
        }
        if received > cap {
            failure = .tooLarge(url: url, cap: cap, declared: nil, firstBytes: head)
            dropBody()
            return false
        }
        return true
    }

    /// The socket guard's verdict on the address libcurl is about to connect to; true refuses.
    func refuses(address: IPAddress?, port: Int) -> Bool {
        if viaProxy { return false }
        guard let address else {
            if refusal == nil { refusal = ("a non-IP socket", AddressRule(purpose: "not an IP address", range: "-")) }
            return !policy.allowPrivateNetworks
        }
        guard let rule = policy.refusal(address: address, port: port) else { return false }
        if refusal == nil { refusal = (address.description, rule) }
        return true
    }

    /// Hands the body over (in memory, or the finished spool file) and frees it from the context.
    func takeBody() -> FetchBody {
        defer { body = [] }
        if let writer = spoolWriter {
            spoolWriter = nil
            return .file(writer.finish())
        }
        return .memory(Data(body))
    }

    /// Removes what the body left (a spool file): for a transfer that failed.
    func discardBody() { dropBody() }
}
