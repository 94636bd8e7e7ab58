import Foundation
import TestSupport
import Testing

/// `prepare --rewrite OUT.jsonl --base-url URL`: every convention's payload comes back pointing at
/// its prepared file, with its type hint in the convention's own key; refused media follows the
/// chosen policy.
@Suite(.serialized, .tags(.slow), .notInFastTier) struct RewriteCLITests {
    static let base = "https://cdn.example.com/push/"

    /// The payloads, one per convention, each naming its own image on the origin.
    static func payloads(_ url: (String) -> String) -> [String] {
        [
            #"{"id":"url","url":"\#(url("/1.webp"))","media_type":"image"}"#,
            #"{"id":"fcm","data":{"attachment":"\#(url("/2.jpg"))","media_type":"image"}}"#,
            #"{"id":"aurl","aps":{"mutable-content":1},"attachment-url":"\#(url("/3.jpg"))"}"#,
            #"{"id":"media_url","aps":{"mutable-content":1},"media_url":"\#(url("/4.webp"))","media_type":"image"}"#,
            #"{"id":"fcm_options","message":{"apns":{"fcm_options":{"image":"\#(url("/5.jpg"))"}}}}"#,
            #"{"id":"notification","message":{"notification":{"image":"\#(url("/6.jpg"))"}}}"#,
            #"{"id":"data.image","message":{"data":{"image":"\#(url("/7.jpg"))"}}}"#,
            #"{"id":"att","aps":{"mutable-content":1},"att":{"pic":"\#(url("/8.webp"))","type":"webp"}}"#,
            #"{"id":"ios_attachments","contents":{"en":"hi"},"ios_attachments":{"pic":"\#(url("/9.jpg"))"}}"#,
            #"{"id":"airship","com.urbanairship.media_attachment":{"url":["\#(url("/10.webp"))"],"options":{"type":"webp"}}}"#,
            #"{"id":"cio","cioImage":"\#(url("/11.jpg"))"}"#,
            #"{"id":"clevertap","ct_mediaUrl":"\#(url("/12.jpg"))","ct_mediaType":"image"}"#,
            #"{"id":"mixpanel","mp_media_url":"\#(url("/13.jpg"))"}"#,
            #"{"id":"braze","apple_push":{"asset_url":"\#(url("/14.webp"))","asset_file_type":"webp"}}"#,
            #"{"id":"refused","aps":{"mutable-content":1},"media_url":"\#(url("/note.jpg"))","media_type":"image"}"#,
            #"{"id":"text-only","aps":{"alert":"no media"}}"#,
        ]
    }

    /// The prepared URL and hint each convention's payload should end with: (key path, hint path, hint value kind).
    static let expectations: [String: (url: [String], hint: [String]?, hint_value: String?)] = [
        "url": (["url"], ["media_type"], "public.jpeg"),
        "fcm": (["data", "attachment"], ["data", "media_type"], "public.jpeg"),
        "aurl": (["attachment-url"], ["media_type"], "public.jpeg"),
        "media_url": (["media_url"], ["media_type"], "public.jpeg"),
        "fcm_options": (["message", "apns", "fcm_options", "image"], nil, nil),
        "notification": (["message", "notification", "image"], nil, nil),
        "data.image": (["message", "data", "image"], nil, nil),
        "att": (["att", "pic"], ["att", "type"], "jpg"),
        "ios_attachments": (["ios_attachments", "pic"], nil, nil),
        "cio": (["cioImage"], nil, nil),
        "clevertap": (["ct_mediaUrl"], ["ct_mediaType"], "image"),
        "mixpanel": (["mp_media_url"], nil, nil),
        "braze": (["apple_push", "asset_url"], ["apple_push", "asset_file_type"], "jpg"),
    ]

    static func value(_ object: Any?, _ path: [String]) -> Any? {
        path.reduce(object) { ($0 as? [String: Any])?[$1] }
    }

    func run(dropRefused: Bool) throws -> (lines: [[String: Any]], out: URL, stderr: String, cleanup: () -> Void) {
        let origin = try TestHTTPServer()
        let jpeg = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        let webp = try Data(contentsOf: Corpus.testImages.appendingPathComponent("lossy-320x240.webp"))
        for n in 1...14 {
            let isWebP = [1, 4, 8, 10, 14].contains(n)
            origin.route("/\(n).\(isWebP ? "webp" : "jpg")") { _ in
                .bytes(isWebP ? webp : jpeg, contentType: isWebP ? "image/webp" : "image/jpeg")
            }
        }
        origin.route("/note.jpg") { _ in .text("not a picture\n") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rewrite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let export = dir.appendingPathComponent("export.jsonl")
        try Data((Self.payloads(origin.url).joined(separator: "\n") + "\n").utf8).write(to: export)
        let out = dir.appendingPathComponent("out")
        let rewritten = dir.appendingPathComponent("rewritten.jsonl")
        let result = try ProcessRunner.run(
            "pushattach",
            ["prepare", export.path, "-o", out.path, "--allow-private-networks", "-q", "--rewrite", rewritten.path, "--base-url", Self.base]
                + (dropRefused ? ["--drop-refused"] : []))
        origin.stop()
        #expect(result.status == 1, "one item is refused: \(result.stderr)")
        let lines = try String(contentsOf: rewritten, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        return (lines, out, result.stderr, { try? FileManager.default.removeItem(at: dir) })
    }

    @Test func everyConventionPointsAtItsPreparedFileWithItsHint() throws {
        let (lines, out, stderr, cleanup) = try run(dropRefused: false)
        defer { cleanup() }
        #expect(stderr.contains("rewritten: 16 payloads (1 with refused media removed, 0 dropped)"), "\(stderr)")
        let byID = Dictionary(uniqueKeysWithValues: lines.map { ($0["id"] as! String, $0) })
        #expect(byID.count == 16)
        for (id, expected) in Self.expectations {
            let payload = try #require(byID[id], "\(id)")
            let url = try #require(Self.value(payload, expected.url) as? String, "\(id): \(payload)")
            #expect(url.hasPrefix(Self.base), "\(id): \(url)")
            let file = String(url.dropFirst(Self.base.count))
            #expect(file.hasPrefix("Images/") && file.hasSuffix(".jpg"), "\(id): \(file)")
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(file).path), "\(id): \(file)")
            if let hint = expected.hint {
                #expect(Self.value(payload, hint) as? String == expected.hint_value, "\(id): \(payload)")
            }
            #expect(payload["pushattach_error"] == nil)
        }
        let airship = try #require(byID["airship"]?["com.urbanairship.media_attachment"] as? [String: Any])
        #expect((airship["url"] as? [String])?.first?.hasPrefix(Self.base + "Images/") == true)
        #expect((airship["options"] as? [String: Any])?["type"] as? String == "jpg")
        // Refused: the media and its hint removed, the reason noted; the rest of the push kept.
        let refused = try #require(byID["refused"])
        #expect(refused["media_url"] == nil && refused["media_type"] == nil)
        #expect((refused["pushattach_error"] as? String)?.contains("note.jpg") == true)
        #expect(refused["aps"] != nil)
        // A push without media is written unchanged.
        #expect((byID["text-only"]?["aps"] as? [String: Any])?["alert"] as? String == "no media")
    }

    @Test func dropRefusedLeavesThemOut() throws {
        let (lines, _, stderr, cleanup) = try run(dropRefused: true)
        defer { cleanup() }
        #expect(lines.count == 15)
        #expect(!lines.contains { $0["id"] as? String == "refused" })
        #expect(stderr.contains("1 dropped"), "\(stderr)")
    }

    @Test func rewriteNeedsABaseURLAndFiles() throws {
        let a = try ProcessRunner.run("pushattach", ["prepare", "x.json", "-o", "/tmp/never", "--rewrite", "o.jsonl"])
        #expect(a.status == 64)
        #expect(a.stderr.contains("--rewrite OUT.jsonl and --base-url URL go together"))
        let b = try ProcessRunner.run(
            "pushattach", ["prepare", "-", "-o", "/tmp/never", "--rewrite", "o.jsonl", "--base-url", "https://x.example/"])
        #expect(b.status == 64)
        #expect(b.stderr.contains("give them as files"))
    }
}
