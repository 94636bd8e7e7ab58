import Foundation
import TestSupport
import Testing

/// Push payloads as `prepare` users meet them: every convention in `--help` with an example,
/// one item per distinct URL in a push, and problems that name the file and the line. No
/// network: the URLs point at loopback, which the connect-time guard refuses.
@Suite("pushattach prepare payloads", .tags(.slow), .notInFastTier)
struct PayloadsCLITests {
    static func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("payloads-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func entries(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func helpListsEveryConventionWithAnExample() throws {
        let help = try ProcessRunner.run("pushattach", ["prepare", "--help"]).stdout
        #expect(help.contains("PUSH PAYLOADS:"))
        let keys = [
            "url", "attachment", "attachment-url", "media_url", "fcm_options.image", "notification.image", "att",
            "com.urbanairship.media_attachment", "cioImage", "ct_mediaUrl", "mp_media_url",
        ]
        for key in keys {
            #expect(help.contains("\n  \(key) ") || help.contains("\n  \(key)\n"), "\(key) not listed")
        }
        #expect(help.contains(#"{"att":{"id":"https://cdn.example/a.jpg","type":"jpg"}}"#))
        #expect(help.contains(#"{"message":{"apns":{"fcm_options":{"image":"https://cdn.example/a.jpg"}}}}"#))
    }

    /// Two payloads: an FCM v1 message naming its image twice, and a OneSignal map
    /// with a type. One item each, and no "not a URL: 'png'".
    @Test func onePushGivesOneItemPerDistinctURL() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fcm = dir.appendingPathComponent("fcm.json")
        try Data(
            """
            {"message": {"token": "t",
              "notification": {"title": "Pizza", "image": "http://127.0.0.1:9/pizza.png"},
              "apns": {"payload": {"aps": {"mutable-content": 1}},
                       "fcm_options": {"image": "http://127.0.0.1:9/pizza.png"}}}}
            """.utf8
        ).write(to: fcm)
        let oneSignal = dir.appendingPathComponent("onesignal.jsonl")
        try Data(#"{"att": {"id": "http://127.0.0.1:9/logo.png", "type": "png"}}"#.utf8).write(to: oneSignal)
        let out = dir.appendingPathComponent("out")
        let result = try ProcessRunner.run(
            "pushattach", ["prepare", fcm.path, oneSignal.path, "-o", out.path, "--json", "--retries", "0"])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        let entries = try Self.entries(result.stdout)
        #expect(entries.count == 2, "\(result.stdout)")
        let byInput = Dictionary(uniqueKeysWithValues: entries.map { ($0["input"] as! String, $0) })
        #expect(byInput["http://127.0.0.1:9/pizza.png"]?["line"] as? Int == 2)
        #expect(byInput["http://127.0.0.1:9/logo.png"]?["id"] as? String == "id")
        #expect(!result.stderr.contains("not a URL"))
        // The fetch guard's refusal, in the command line's words.
        let reason = try #require(byInput["http://127.0.0.1:9/logo.png"]?["reason"] as? String)
        #expect(reason.contains("permit them with --allow-private-networks"), "\(reason)")
        #expect(!result.stderr.contains("FetchPolicy"))
    }

    /// A problem with a payload file is shown as `file:line: reason`.
    @Test func payloadProblemsNameTheFileAndTheLine() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let array = dir.appendingPathComponent("pushes.json")
        try Data("[\n  {\"aps\": {}},\n  42\n]\n".utf8).write(to: array)
        let lines = dir.appendingPathComponent("pushes.jsonl")
        try Data("{\"aps\": {}}\n\n{\"aps\": \n".utf8).write(to: lines)
        let out = dir.appendingPathComponent("out")
        let result = try ProcessRunner.run("pushattach", ["prepare", array.path, lines.path, "-o", out.path])
        #expect(result.status == 1)
        let stderr = result.stderr
        #expect(stderr.contains("failed \(array.path):3: element 2 of the JSON array is not an object"))
        #expect(stderr.contains("failed \(lines.path):3: not valid JSON"))
        // The two pushes without media are neither failed nor rejected.
        #expect(!stderr.contains("no attachment URL found"), "\(stderr)")
        #expect(stderr.contains("2 items: 0 prepared, 0 rejected, 2 failed, 2 pushes without media"), "\(stderr)")
    }

    /// A normal export (some pushes with media, some text-only) exits 0: the text-only pushes
    /// are not failures.
    @Test func textOnlyPushesDoNotFailTheRun() throws {
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        origin.route("/a.jpg") { _ in .bytes(jpeg, contentType: "image/jpeg") }
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = dir.appendingPathComponent("export.jsonl")
        let pushes = [
            #"{"aps":{"alert":"hi","mutable-content":1},"media_url":"\#(origin.url("/a.jpg"))"}"#,
            #"{"aps":{"alert":"text only"}}"#, #"{"message":{"notification":{"title":"t"}}}"#,
        ]
        try Data((pushes.joined(separator: "\n") + "\n").utf8).write(to: export)
        let result = try ProcessRunner.run(
            "pushattach", ["prepare", export.path, "-o", dir.appendingPathComponent("out").path, "--allow-private-networks"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("1 item: 1 prepared, 0 rejected, 0 failed, 2 pushes without media"), "\(result.stderr)")
    }
}
