import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

@Suite("Inputs: push payloads and local media", .tags(.slow), .notInFastTier)
struct PayloadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let json: String
        let expected: [InputItem]
        var testDescription: String { name }
    }

    static func item(_ url: String, _ type: String? = nil, id: String? = nil, line: Int, _ convention: String)
        -> InputItem
    {
        InputItem(url: url, mediaType: type, id: id, source: "", line: line, convention: convention)
    }

    static let cases: [Case] = [
        Case(
            name: "FCM data attachment",
            json: """
                {
                  "aps": {"alert": "hi", "mutable-content": 1},
                  "data": {
                    "attachment": "https://x.test/fcm.jpg",
                    "media_type": "image"
                  }
                }
                """, expected: [item("https://x.test/fcm.jpg", "image", line: 4, "fcm")]),
        Case(
            name: "top-level attachment", json: #"{"attachment": "https://x.test/top.png", "media_type": "image/png"}"#,
            expected: [item("https://x.test/top.png", "image/png", line: 1, "fcm")]),
        Case(
            name: "APNs attachment-url",
            json: """
                {"aps": {"mutable-content": 1},
                 "data": {"attachment-url": "https:\\/\\/x.test\\/apns.gif"}}
                """, expected: [item("https://x.test/apns.gif", line: 2, "attachment-url")]),
        Case(
            name: "media_url + media_type", json: #"{"media_url": "https://x.test/m.mp4", "media_type": "video"}"#,
            expected: [item("https://x.test/m.mp4", "video", line: 1, "media_url")]),
        Case(
            name: "FCM v1 message with apns fcm_options and notification image",
            json: """
                {"message": {
                  "notification": {"title": "t", "image": "https://x.test/n.jpg"},
                  "apns": {"payload": {"aps": {}}, "fcm_options": {"image": "https://x.test/apns-fcm.jpg"}}
                }}
                """,
            expected: [
                item("https://x.test/n.jpg", line: 2, "fcm_notification"),
                item("https://x.test/apns-fcm.jpg", line: 3, "fcm_options"),
            ]),
        Case(
            name: "OneSignal att",
            json: #"{"aps": {}, "att": {"id2": "https://x.test/os2.png", "id1": "https://x.test/os1.jpg"}}"#,
            expected: [
                item("https://x.test/os1.jpg", id: "id1", line: 1, "onesignal"),
                item("https://x.test/os2.png", id: "id2", line: 1, "onesignal"),
            ]),
        Case(
            name: "Airship array with type hint",
            json: """
                {"aps": {},
                 "com.urbanairship.media_attachment": {
                   "url": ["https://x.test/ua.gif"],
                   "options": {"type": "gif", "crop": {"x": 0}}
                }}
                """, expected: [item("https://x.test/ua.gif", "gif", line: 3, "airship")]),
        Case(
            name: "Airship string", json: #"{"com.urbanairship.media_attachment": {"url": "https://x.test/ua.jpg"}}"#,
            expected: [item("https://x.test/ua.jpg", line: 1, "airship")]),
        Case(
            name: "Customer.io", json: #"{"CIO": {"push": {}}, "cioImage": "https://x.test/cio.png"}"#,
            expected: [item("https://x.test/cio.png", line: 1, "customerio")]),
        Case(
            name: "CleverTap", json: #"{"ct_mediaUrl": "https://x.test/ct.mp3", "ct_mediaType": "audio"}"#,
            expected: [item("https://x.test/ct.mp3", "audio", line: 1, "clevertap")]),
        Case(
            name: "Mixpanel", json: #"{"mp": {}, "mp_media_url": "https://x.test/mp.jpg"}"#,
            expected: [item("https://x.test/mp.jpg", line: 1, "mixpanel")]),
        Case(
            name: "array of payloads, duplicate URL reported once per payload",
            json: """
                [
                  {"attachment": "https://x.test/a.jpg", "data": {"attachment": "https://x.test/a.jpg"}},
                  {"media_url": "https://x.test/b.jpg"}
                ]
                """,
            expected: [
                item("https://x.test/a.jpg", line: 2, "fcm"), item("https://x.test/b.jpg", line: 3, "media_url"),
            ]),
    ]

    @Test(arguments: cases)
    func payloadConvention(_ testCase: Case) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.file("payload.json", testCase.json)
        let result = events([file.path])
        #expect(result.problems.isEmpty)
        let expected = testCase.expected.map { item in
            var item = item
            item.source = file.path
            return item
        }
        #expect(result.items == expected)
    }

    @Test func payloadConventionsOnJSONLines() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.file(
            "payloads.jsonl",
            """
            {"att": {"x": "https://x.test/1.jpg"}}
            {"ct_mediaUrl": "https://x.test/2.jpg", "ct_mediaType": "image"}
            """)
        let result = events([file.path])
        #expect(result.items.map(\.convention) == ["onesignal", "clevertap"])
        #expect(result.items.map(\.line) == [1, 2])
        #expect(result.items.map(\.id) == ["x", nil])
    }

    @Test func payloadProblems() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let none = try dir.file("none.json", "{\n  \"aps\": {\"alert\": \"no media\"}\n}\n")
        let broken = try dir.file("broken.json", "{\n  \"aps\": \n")
        let badURL = try dir.file("bad.json", "{\n \"media_url\": \"javascript:alert(1)\"\n}")
        let result = events([none.path, broken.path, badURL.path])
        #expect(result.items.isEmpty)
        #expect(result.problems.count == 2)
        #expect(result.withoutMedia.map(\.message) == ["the payload: no media"], "a text-only push is not a problem")
        #expect(result.problems[0].message.hasPrefix("not valid JSON"))
        #expect(result.problems[1].line == 2)
        #expect(result.problems[1].message.contains("expected http:// or https://"))
    }

    @Test(arguments: [
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] as [UInt8],
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
        Array("GIF89a".utf8),
        Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8),
        [0x00, 0x00, 0x00, 0x18] + Array("ftypmp42".utf8),
        Array("ID3".utf8) + [0x04, 0x00],
    ])
    func localMediaFileBecomesFileURL(_ bytes: [UInt8]) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.file("photo.txt", bytes: bytes + Array(repeating: 0x41, count: 100))
        let result = events([file.path])
        #expect(result.problems.isEmpty)
        #expect(
            result.items == [
                InputItem(url: file.standardizedFileURL.absoluteString, source: file.path, line: 0, convention: "file")
            ])
        #expect(result.items.first?.url.hasPrefix("file:///") == true)
    }

    /// Bytes of no media format under a name of none (binary junk named `.txt`) are neither
    /// media nor a list: one problem for the whole INPUT, which quotes none of it.
    @Test func binaryJunkUnderATextNameIsNeitherMediaNorAList() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.file("photo.txt", bytes: [0xC3, 0x28, 0x41, 0x42, 0x43, 0x44] + Array(repeating: 0x41, count: 100))
        let result = events([file.path])
        #expect(result.items.isEmpty)
        #expect(result.problems.count == 1)
        #expect(result.problems.first?.message.hasPrefix("neither media nor a list: it holds bytes of no format iOS knows") == true)
        #expect(result.problems.first?.message.contains("AAAA") == false)
    }

    @Test func corpusImageIsMedia() throws {
        let jpegs = Corpus.files(in: "photos", extensions: ["jpg"])
        try #require(!jpegs.isEmpty, "corpus not available")
        let result = events([jpegs[0].path])
        #expect(result.items.first?.convention == "file")
    }

    @Test func binaryOnStandardInputIsAProblem() throws {
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data([0xFF, 0xD8, 0xFF, 0xE0]))
        try pipe.fileHandleForWriting.close()
        let result = events(["-"], stdin: pipe.fileHandleForReading)
        #expect(result.items.isEmpty)
        #expect(result.problems.count == 1)
    }

    @Test func lineLocatorFindsEscapedSlashes() {
        let locator = LineLocator(Array("{\n\n \"u\": \"https:\\/\\/x\\/a.jpg\"\n}".utf8))
        #expect(locator.line(of: "https://x/a.jpg") == 3)
        #expect(locator.line(of: "absent") == 1)
    }

    @Test func jsonArrayOfURLObjects() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.file(
            "list.json",
            """
            [
              {"url": "https://x.test/1.jpg", "media_type": "jpg", "id": "a"},
              {"url": "https://x.test/2.jpg"},
              "not an object",
              {"aps": {}}
            ]
            """)
        let result = events([file.path])
        #expect(result.items.map(\.url) == ["https://x.test/1.jpg", "https://x.test/2.jpg"])
        #expect(result.items.map(\.line) == [2, 3])
        #expect(result.items.map(\.id) == ["a", nil])
        #expect(result.problems.map(\.message) == ["element 3 of the JSON array is not an object"])
        #expect(result.withoutMedia.map(\.message) == ["element 4 of the JSON array: no media"])
    }

    @Test func utf16IsAProblemNotMedia() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try dir.file("list16.txt", bytes: [0xFF, 0xFE, 0x68, 0x00, 0x74, 0x00])
        let result = events([file.path])
        #expect(result.items.isEmpty)
        #expect(result.problems.first?.message.contains("UTF-16") == true)
    }
}
