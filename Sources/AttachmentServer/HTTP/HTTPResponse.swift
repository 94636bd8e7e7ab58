import Foundation

/// An answer to one request, before libmicrohttpd sees it. `Content-Length` and `Date` are added
/// by the daemon; a `HEAD` request gets the head of the same answer.
struct HTTPResponse: Sendable {
    enum Body: Sendable {
        /// No body (304).
        case empty
        /// Bytes held in memory (copied by the daemon).
        case data(Data)
        /// `length` bytes from `descriptor` at `offset`, sent with `sendfile`; the daemon takes the
        /// descriptor over and closes it.
        case file(descriptor: Int32, offset: Int, length: Int)
        /// A whole answer made once (`HTTPDaemon.share`), sent as it is to any number of
        /// requests; the response's own status and headers are not used.
        case shared(SharedResponse)
    }

    var status: Int
    var headers: [(String, String)]
    var body: Body

    init(status: Int, headers: [(String, String)] = [], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The answer `shared` holds.
    init(_ shared: SharedResponse) {
        self.init(status: shared.status, body: .shared(shared))
    }

    /// The body's length in bytes.
    var length: Int {
        switch body {
        case .empty: 0
        case .data(let data): data.count
        case .file(_, _, let length): length
        case .shared(let shared): shared.length
        }
    }

    /// Closes the descriptor of a file body that will not be sent.
    func discard() {
        if case .file(let descriptor, _, _) = body, descriptor >= 0 { close(descriptor) }
    }
}
