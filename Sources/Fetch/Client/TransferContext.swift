import Foundation

/// The state of one libcurl transfer (one hop of one attempt), shared with the C callbacks.
///
///     let context = TransferContext(url: url, policy: policy, cap: policy.byteCap)
///     // pass Unmanaged.passUnretained(context).toOpaque() as the callbacks' userdata
///
/// The callbacks all run on the worker thread inside `curl_easy_perform`; only `cancel()`
/// comes from elsewhere, so it alone is behind a lock.
final class TransferContext: @unchecked Sendable {
    let url: String
    let policy: FetchPolicy
    private(set) var cap: Int
    private var capTightened = false

    private(set) var status = 0
    private(set) var headers = ResponseHeaders()
    private(set) var body: [UInt8] = []
    private(set) var received = 0
    /// A failure a callback decided on (the byte cap); wins over libcurl's generic code.
    private(set) var failure: FetchError?
    /// The first address the socket guard refused.
    private(set) var refusal: (address: String, rule: AddressRule)?

    private let cancelLock = NSLock()
    private var cancelled = false

    init(url: String, policy: FetchPolicy, cap: Int) {
        self.url = url
        self.policy = policy
        self.cap = cap
    }

    var isSuccessStatus: Bool { (200...299).contains(status) }

    func cancel() { cancelLock.withLock { cancelled = true } }
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
        received += chunk.count
        if received > cap {
            failure = .tooLarge(url: url, cap: cap, declared: nil)
            body = []
            return false
        }
        guard isSuccessStatus else { return true }
        body.append(contentsOf: chunk)
        if !capTightened, body.count >= 64 { return tightenCap() }
        return true
    }

    /// Body bytes received so far as sent (before decoding), from the progress callback; false
    /// aborts the transfer: on cancellation, or when they pass the cap, as a compressed stream
    /// that inflates to nearly nothing would otherwise only be stopped by the deadline.
    func progress(wireBytes: Int) -> Bool {
        if isCancelled { return false }
        if wireBytes > cap {
            if failure == nil { failure = .tooLarge(url: url, cap: cap, declared: nil) }
            body = []
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
            failure = .tooLarge(url: url, cap: cap, declared: nil)
            body = []
            return false
        }
        return true
    }

    /// The socket guard's verdict on the address libcurl is about to connect to; true refuses.
    func refuses(address: IPAddress?, port: Int) -> Bool {
        guard let address else {
            if refusal == nil { refusal = ("a non-IP socket", AddressRule(purpose: "not an IP address", range: "-")) }
            return !policy.allowPrivateNetworks
        }
        guard let rule = policy.refusal(address: address, port: port) else { return false }
        if refusal == nil { refusal = (address.description, rule) }
        return true
    }

    /// Hands the body over and frees it from the context.
    func takeBody() -> [UInt8] {
        defer { body = [] }
        return body
    }
}
