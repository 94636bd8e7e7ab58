import Foundation
import PushAttach

extension RequestRouter {
    /// The answer an entry gives: the file (or 304 when the client has it), or a cached refusal.
    /// A hit (`hotKey`: the entry's key digest) hands its descriptor to an answer made once and
    /// kept in `hotAnswers` for the key's next hits; the entry of one preparation (`hotKey` nil),
    /// sent to each of its waiters, is sent through a duplicate of its descriptor.
    func answer(_ entry: AttachmentCache.Entry, to exchange: HTTPExchange, keepingFor hotKey: String?) -> HTTPResponse {
        let answer = entry.answer
        guard answer.status == 200, let sha256 = answer.sha256 else {
            return refusalResponse(status: answer.status, body: (try? entry.body()) ?? Data(), age: entry.age)
        }
        let etag = "\"\(sha256)\""
        let headers = [
            ("ETag", etag), ("Cache-Control", "public, max-age=\(configuration.maxAge)"),
            ("X-Attachment-Type-Hint", answer.typeHint ?? ""),
        ]
        if Self.matches(exchange.ifNoneMatch, etag: etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        guard let (descriptor, offset) = hotKey == nil ? entry.duplicateDescriptor() : entry.takeDescriptor() else {
            return Self.outOfDescriptors
        }
        let response = HTTPResponse(
            status: 200, headers: [("Content-Type", answer.contentType)] + headers,
            body: .file(descriptor: descriptor, offset: offset, length: answer.byteCount))
        guard let hotKey else { return response }
        guard let made = HTTPDaemon.share(response) else {
            return Self.problemResponse(
                AttachmentProblem(
                    status: 503, error: "unavailable", reason: "out of memory for the answer; try again",
                    retryAfter: .seconds(1)))
        }
        hotAnswers.keep(
            HotAnswers.Answer(entry: entry, response: made, etag: etag, notModifiedHeaders: headers), for: hotKey)
        exchange.kept = (hotKey, made)
        return HTTPResponse(made)
    }

    /// The answer of a hit on the answer kept for `digest` (`hotAnswers`): its 200 as made, or a
    /// 304 when the client has it.
    func answer(_ hot: HotAnswers.Answer, for digest: String, to exchange: HTTPExchange) -> HTTPResponse {
        if Self.matches(exchange.ifNoneMatch, etag: hot.etag) {
            return HTTPResponse(status: 304, headers: hot.notModifiedHeaders)
        }
        exchange.kept = (digest, hot.response)
        return HTTPResponse(hot.response)
    }

    static var outOfDescriptors: HTTPResponse {
        problemResponse(
            AttachmentProblem(
                status: 503, error: "unavailable", reason: "out of file descriptors; try again", retryAfter: .seconds(1)))
    }

    /// True when an `If-None-Match` list names `etag` (weakly compared, as RFC 9110 says for
    /// this header) or is `*`.
    static func matches(_ header: String?, etag: String) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }

    /// A JSON error answer (`AttachmentProblem`) no cache may keep, with `Retry-After` when the
    /// problem gives advice.
    static func problemResponse(_ problem: AttachmentProblem) -> HTTPResponse {
        var headers = [("Content-Type", "application/json"), ("Cache-Control", "no-store")]
        if let seconds = problem.retryAfterSeconds { headers.append(("Retry-After", String(seconds))) }
        return HTTPResponse(status: problem.status, headers: headers, body: .data(problem.json))
    }

    /// A refusal the cache keeps for `rejectionTTL` (422, the origin's 404), `age` seconds after
    /// it was stored: the same headers whether it was just made or read from the cache, so a
    /// CDN keeps the first answer as it keeps the later ones.
    func refusalResponse(status: Int, body: Data, age: Double) -> HTTPResponse {
        let maxAge = max(0, Int(configuration.rejectionTTL.components.seconds) - Int(age))
        return HTTPResponse(
            status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "public, max-age=\(maxAge)")],
            body: .data(body))
    }

    static func text(_ text: String, type: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: [("Content-Type", type), ("Cache-Control", "no-store")], body: .data(Data(text.utf8)))
    }

    /// The path without its query. Searched as UTF-8 bytes: a link's URI is a few hundred
    /// bytes, and a search by `Character` costs a hit several percent of its time.
    static func route(of uri: String) -> Substring {
        uri.utf8.firstIndex(of: UInt8(ascii: "?")).map { uri[..<$0] } ?? Substring(uri)
    }

    /// The route as the access log names it: never the link's signature, source or query.
    static func loggedRoute(_ uri: String) -> String {
        let route = route(of: uri)
        if route.hasPrefix("/a/") { return "/a" }
        return ["/healthz", "/readyz", "/metrics"].contains(String(route)) ? String(route) : "other"
    }
}

extension Duration {
    /// The duration in seconds, with its fraction.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// The duration in whole milliseconds, rounded down.
    var inMilliseconds: Int { Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000) }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
