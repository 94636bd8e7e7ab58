import Foundation
import PushPayloads
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// The rewriter on single payloads (the CLI tests run it end to end per convention).
@Suite(.tags(.slow), .notInFastTier) struct PayloadRewriterTests {
    let base = "https://cdn.example.com/push/"

    func rewrite(_ payload: [String: Any], _ outcomes: [String: PayloadRewriter.Outcome]) -> ([String: Any], [String]) {
        var errors: [String] = []
        let result = PayloadRewriter.rewrite(payload, base: base, outcomes: outcomes, errors: &errors)
        return (result as? [String: Any] ?? [:], errors)
    }

    static func prepared(_ file: String) -> PayloadRewriter.Outcome {
        .prepared(file: file, uti: "public.jpeg", fileExtension: "jpg", category: "image")
    }

    @Test func pathComponentsArePercentEncoded() {
        let (out, errors) = rewrite(
            ["media_url": "https://x.test/a.jpg"], ["https://x.test/a.jpg": Self.prepared("Images/X-caf\u{E9} +1.jpg")])
        #expect(errors.isEmpty)
        #expect(out["media_url"] as? String == base + "Images/X-caf%C3%A9%20%2B1.jpg")
    }

    /// A URL the reader refused has no entry: the rewrite refuses it too rather than keep it.
    @Test func aURLTheReaderRefusedIsRemovedWithItsReason() {
        let (out, errors) = rewrite(["aps": [:] as [String: Any], "media_url": "ftp://x.test/a.jpg"], [:])
        #expect(out["media_url"] == nil)
        #expect(errors.count == 1 && errors[0].hasPrefix("ftp://x.test/a.jpg: "))
    }

    /// A refused URL does not take away the hint a prepared URL beside it set.
    @Test func aSharedHintKeyStaysForThePreparedURL() {
        let (out, errors) = rewrite(
            ["media_url": "https://x.test/a.jpg", "attachment-url": "https://x.test/bad.txt", "media_type": "image"],
            ["https://x.test/a.jpg": Self.prepared("Images/A.jpg"), "https://x.test/bad.txt": .refused(reason: "not media")])
        #expect(out["media_type"] as? String == "public.jpeg")
        #expect(out["attachment-url"] == nil)
        #expect(errors == ["https://x.test/bad.txt: not media"])
    }

    /// In a push, `url` is the link opened on tap (OneSignal): the attachment is the convention's.
    @Test func aPushsURLIsItsTapLinkNotItsMedia() throws {
        let body: [String: Any] = [
            "app_id": "x", "contents": ["en": "hi"], "url": "https://shop.example/sale",
            "ios_attachments": ["pic": "https://x.test/o.jpg"],
        ]
        let found = try PayloadConventions.items(inInputObject: body).get()
        #expect(found.map(\.url) == ["https://x.test/o.jpg"])
        let (out, _) = rewrite(body, ["https://x.test/o.jpg": Self.prepared("Images/O.jpg")])
        #expect(out["url"] as? String == "https://shop.example/sale")
        #expect((out["ios_attachments"] as? [String: Any])?["pic"] as? String == base + "Images/O.jpg")
    }

    /// A push naming a URL under a key no convention has is a problem to see, not "no media".
    @Test func aPushWithAnUnknownMediaKeyIsAProblem() {
        let expo: [String: Any] = ["data": ["title": "t"], "richContent": ["image": "https://x.test/e.jpg"]]
        guard case .failure(let failure) = PayloadConventions.items(inInputObject: expo) else {
            Issue.record("expected no URL found")
            return
        }
        #expect(!failure.isPushWithoutMedia)
        guard case .failure(let textOnly) = PayloadConventions.items(inInputObject: ["aps": ["alert": "hi"]]) else {
            Issue.record("expected no URL found")
            return
        }
        #expect(textOnly.isPushWithoutMedia)
    }
}
