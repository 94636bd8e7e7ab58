import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A minimal loopback HTTP/1.1 listener over POSIX sockets, enough for the demo: one request
/// per connection, the request line and headers read, the body ignored, `Connection: close`.
/// A real server would use its framework (SwiftNIO, Hummingbird, Vapor) and keep only the
/// handler.
struct Listener {
    let socket: Int32
    let port: UInt16

    /// Listens on 127.0.0.1:`port` (0 picks a free port).
    init(port: UInt16) throws {
        #if canImport(Glibc)
            let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(errno, "socket") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let error = POSIXError(errno, "bind/listen")
            close(fd)
            throw error
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socket = fd
        self.port = UInt16(bigEndian: address.sin_port)
    }

    /// Waits for the next connection (blocking).
    func accept() throws -> Connection {
        while true {
            let client = systemAccept(socket)
            if client >= 0 { return Connection(socket: client) }
            if errno != EINTR { throw POSIXError(errno, "accept") }
        }
    }
}

private func systemAccept(_ socket: Int32) -> Int32 {
    #if canImport(Glibc)
        Glibc.accept(socket, nil, nil)
    #else
        Darwin.accept(socket, nil, nil)
    #endif
}

/// One accepted connection: read a request's head, write one response, close.
struct Connection: Sendable {
    let socket: Int32

    /// The request line's method and target ("GET", "/prepare?url=…"), or nil when malformed.
    func readRequestLine() -> (method: String, target: String)? {
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 65_536 {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            head += buffer[..<count]
            if String(decoding: head, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let text = String(decoding: head, as: UTF8.self)
        guard let line = text.split(separator: "\r\n", maxSplits: 1).first else { return nil }
        let parts = line.split(separator: " ")
        guard parts.count == 3 else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    /// Writes a JSON response (with `Retry-After` when given, in seconds) and closes the connection.
    func respond(status: Int, json: Data, retryAfter: Int? = nil) {
        let phrases = [
            200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
            413: "Content Too Large", 422: "Unprocessable Content", 502: "Bad Gateway", 503: "Service Unavailable",
            504: "Gateway Timeout",
        ]
        let advice = retryAfter.map { "Retry-After: \($0)\r\n" } ?? ""
        let phrase = phrases[status] ?? "Status"
        var response = Data(
            "HTTP/1.1 \(status) \(phrase)\r\nContent-Type: application/json\r\nContent-Length: \(json.count)\r\n\(advice)Connection: close\r\n\r\n"
                .utf8)
        response.append(json)
        response.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = send(socket, bytes.baseAddress! + sent, bytes.count - sent, 0)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                sent += count
            }
        }
        close(socket)
    }
}

extension POSIXError {
    /// The error for `errno` after `function` failed.
    init(_ code: Int32, _ function: String) {
        self.init(POSIXErrorCode(rawValue: code) ?? .EIO, userInfo: [NSLocalizedDescriptionKey: "\(function) failed"])
    }
}
