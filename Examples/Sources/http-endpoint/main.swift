// A small HTTP endpoint: how a server calls PushAttach once per request.
//
//     http-endpoint [--allow-private-networks] [--port N] [--requests N] FOLDER
//
//     GET or POST /prepare?url=<media URL>[&typeHint=image]
//       200 {"file": "Images/<UUID>-cat.jpg", "typeHint": "public.jpeg", "width": 320, "height": 240}
//       4xx/5xx {"error": "rejected", "errorCode": 101, "reason": "…", "retryAfter": null, "status": 422}
//               (AttachmentProblem(error): the status and body `pushattach serve` answers with)
//
// It listens on 127.0.0.1 (port 0: a free one, printed as "listening on 127.0.0.1:PORT"),
// handles --requests connections (default 3), each in a task of its own, then exits.
// Without --allow-private-networks it uses `AttachmentPreparer.shared`, which refuses loopback
// and private addresses: the safe default for URLs chosen by senders.
import ExampleSupport
import Foundation
import PushAttach

let usage = "http-endpoint [--allow-private-networks] [--port N] [--requests N] FOLDER"
let arguments = Arguments(usage: usage, valued: ["--port", "--requests"], flags: ["--allow-private-networks"])
guard arguments.positional.count == 1 else { Arguments.fail("expected one folder", usage: usage) }
guard let port = UInt16(arguments.options["--port"] ?? "0"), let requests = Int(arguments.options["--requests"] ?? "3")
else { Arguments.fail("--port and --requests take numbers", usage: usage) }
let folder = URL(fileURLWithPath: arguments.positional[0])

// Freed decode buffers go back to the system instead of staying in per-thread arenas: the
// library leaves the allocator to its host, and recommends this to a server (as the pushattach
// command does). Setting MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=1048576 does the same.
MallocTuning.apply()  // glibc arenas and mmap threshold, before any work

// One preparer for the whole process: every request shares its memory budget and the folder.
let preparer: AttachmentPreparer
if arguments.has("--allow-private-networks") {
    var configuration = AttachmentPreparer.Configuration.default
    configuration.fetch.allowPrivateNetworks = true  // the demo's media server is on loopback
    preparer = AttachmentPreparer(configuration: configuration)
} else {
    preparer = .shared
}

/// The answer to a prepared request.
struct Prepared: Encodable {
    var file: String
    var typeHint: String
    var width: Int?
    var height: Int?
}

let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]

/// The handler a server framework would call: parse, one library call, map the result. Every
/// error answer is an `AttachmentProblem`: the library's one mapping of `AttachmentError` to an
/// HTTP status (`pushattach serve` answers with the same), with the origin's retry advice.
func handle(method: String, target: String) async -> (status: Int, json: Data, retryAfter: Int?) {
    func problem(_ problem: AttachmentProblem) -> (Int, Data, Int?) {
        (problem.status, problem.json, problem.retryAfterSeconds)
    }
    guard let components = URLComponents(string: target), components.path == "/prepare" else {
        return problem(AttachmentProblem(status: 404, error: "no_route", reason: "only /prepare is served"))
    }
    guard method == "GET" || method == "POST" else {
        return problem(AttachmentProblem(status: 405, error: "method_not_allowed", reason: "use GET or POST"))
    }
    let query = components.queryItems ?? []
    guard let url = query.first(where: { $0.name == "url" })?.value else {
        return problem(AttachmentProblem(status: 400, error: "bad_request", reason: "missing query parameter 'url'"))
    }
    let typeHint = query.first(where: { $0.name == "typeHint" })?.value
    do {
        let a = try await preparer.prepare(url, typeHint: typeHint, into: folder)
        let file = String(a.fileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1))
        let answer = Prepared(file: file, typeHint: a.typeHint, width: a.pixelSize?.width, height: a.pixelSize?.height)
        return (200, (try? encoder.encode(answer)) ?? Data("{}".utf8), nil)
    } catch {
        // 400 a bad URL, 403 a refused address, 404 the origin's 404, 422 not media iOS takes,
        // 502 the origin failing (with its Retry-After), 504 a timeout, 503 our own disk.
        return problem(AttachmentProblem(error))
    }
}

let listener: Listener
do { listener = try Listener(port: port) } catch {
    say("cannot listen on 127.0.0.1:\(port): \(error.localizedDescription)")
    exit(2)
}
say("listening on 127.0.0.1:\(listener.port), serving \(requests) requests into \(folder.path)")

await withTaskGroup(of: Void.self) { group in
    for _ in 0..<requests {
        let connection: Connection
        do { connection = try listener.accept() } catch {
            say("accept failed: \(error.localizedDescription)")
            break
        }
        group.addTask {
            guard let (method, target) = connection.readRequestLine() else {
                let problem = AttachmentProblem(status: 400, error: "bad_request", reason: "no request line")
                connection.respond(status: problem.status, json: problem.json)
                return
            }
            let (status, json, retryAfter) = await handle(method: method, target: target)
            say("\(method) \(target) -> \(status) \(String(decoding: json, as: UTF8.self).trimmingCharacters(in: .newlines))")
            connection.respond(status: status, json: json, retryAfter: retryAfter)
        }
    }
}
close(listener.socket)
say("served \(requests) requests")
