import Foundation
import Testing

@testable import PushPayloads

/// The conventions table (`PayloadConventions.all`), which `prepare --help` shows: each example
/// finds what it says; one push gives one item per distinct URL.
@Suite("Payload conventions: the table, one item per URL")
struct PayloadConventionTableTests {
    /// Every convention's help example, parsed, gives one item: the example URL, found by it.
    @Test(arguments: PayloadConventions.all.map(\.key))
    func eachExampleFindsOneItemByItsConvention(key: String) throws {
        let convention = try #require(PayloadConventions.all.first { $0.key == key })
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(convention.example.utf8)) as? [String: Any])
        let found = try PayloadConventions.items(inInputObject: object).get()
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.url == PayloadConventions.exampleURL)
        #expect(found.first?.convention == convention.name)
        #expect(!convention.example.contains(" "), "one word, so help never breaks it: \(convention.example)")
    }

    /// A payload nested 400 deep is searched to the bottom (not cut off at some depth).
    @Test func aPayloadNested400DeepIsSearched() throws {
        var json = #"{"media_url":"https://x.test/deep.jpg"}"#
        for _ in 0..<400 { json = #"{"next":"# + json + "}" }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let found = try PayloadConventions.items(inInputObject: object).get()
        #expect(found.map(\.url) == ["https://x.test/deep.jpg"])
    }

    /// OneSignal's REST `ios_attachments`, FCM's `data.image` and Braze's `asset_url`, in the
    /// payloads those services document.
    @Test func restAndDataConventionsAreRecognised() throws {
        let oneSignal: [String: Any] = [
            "app_id": "x", "contents": ["en": "hi"], "ios_attachments": ["pic": "https://x.test/o.jpg"],
        ]
        #expect(PayloadConventions.attachments(in: oneSignal).map(\.id) == ["pic"])
        let fcm: [String: Any] = ["message": ["token": "t", "data": ["image": "https://x.test/f.jpg", "title": "t"]]]
        #expect(PayloadConventions.attachments(in: fcm).map(\.convention) == ["fcm_data"])
        let braze: [String: Any] = ["apple_push": ["alert": "hi", "asset_url": "https://x.test/b.gif", "asset_file_type": "gif"]]
        #expect(PayloadConventions.attachments(in: braze).map(\.mediaType) == ["gif"])
    }

    @Test func theNoURLMessageListsEveryKey() {
        #expect(PayloadConventions.conventionKeys == PayloadConventions.all.map(\.key).joined(separator: ", "))
        let problem = PayloadConventions.items(inInputObject: ["aps": ["alert": "hi"]])
        guard case .failure(let failure) = problem else {
            Issue.record("expected no URL found")
            return
        }
        for convention in PayloadConventions.all { #expect(failure.message.contains(convention.key)) }
    }

    /// `{"att": {"id": URL, "type": "png"}}`: one item (never a second, failed one, "not a URL:
    /// 'png'"), its id the key as OneSignal names the attachment, its hint the type.
    @Test func oneSignalMapWithATypeIsOneItem() throws {
        let payload: [String: Any] = ["att": ["id": "https://x.test/a.png", "type": "png"]]
        #expect(
            PayloadConventions.attachments(in: payload) == [
                .init(url: "https://x.test/a.png", mediaType: "png", id: "id", convention: "onesignal")
            ])
        // A value that is not a URL (OneSignal reads it as a resource in the app bundle) is no
        // attachment; a typo in a URL still is, and is reported by the reader.
        let mixed: [String: Any] = [
            "att": ["a": "https://x.test/a.jpg", "b": "bundled.png", "c": "htps://x.test/c.jpg"]
        ]
        #expect(PayloadConventions.attachments(in: mixed).map(\.id) == ["a", "c"])
        #expect(PayloadConventions.attachments(in: ["att": ["b": "bundled.png"]]).isEmpty)
    }

    /// FCM v1 puts the same image in `notification.image` and `apns.fcm_options.image`: one push,
    /// one item, also when the two spell the URL differently.
    @Test(arguments: [
        ("https://cdn.example/pizza.png", "https://cdn.example/pizza.png"),
        ("https://cdn.example/pizza.png", "HTTPS://CDN.Example:443/pizza.png"),
        ("https://cdn.example/pizza.png", "https://cdn.example/pizza.png#large"),
        ("http://cdn.example", "http://cdn.example:80/"),
    ])
    func fcmV1MessageWithTheImageTwiceIsOneItem(first: String, second: String) throws {
        let json = """
            {"message": {"token": "t",
              "notification": {"title": "Pizza", "image": "\(first)"},
              "apns": {"payload": {"aps": {"mutable-content": 1}}, "fcm_options": {"image": "\(second)"}},
              "android": {"notification": {"image": "\(first)"}}}}
            """
        let payload = try JSONSerialization.jsonObject(with: Data(json.utf8))
        let found = PayloadConventions.attachments(in: payload)
        #expect(found.map(\.url) == [first], "\(found)")
        #expect(found.map(\.convention) == ["fcm_notification"])
    }

    @Test func distinctURLsStayDistinct() {
        let payload: [String: Any] = [
            "notification": ["image": "https://cdn.example/a.png"],
            "fcm_options": ["image": "https://cdn.example/a.png?size=large"],
            "media_url": "https://cdn.example/A.png",
        ]
        #expect(PayloadConventions.attachments(in: payload).count == 3)
    }

    @Test(arguments: [
        ("HTTPS://CDN.example:443/a.jpg#top", "https://cdn.example/a.jpg"),
        ("http://cdn.example:8080/a.jpg", "http://cdn.example:8080/a.jpg"),
        ("https://cdn.example", "https://cdn.example/"),
        ("https://cdn.example/A.jpg?x=1", "https://cdn.example/A.jpg?x=1"),
        ("not a url", "not a url"),
    ])
    func urlIdentity(url: String, identity: String) {
        #expect(PayloadConventions.identity(of: url) == identity)
    }
}
