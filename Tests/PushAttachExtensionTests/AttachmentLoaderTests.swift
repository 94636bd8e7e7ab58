import Foundation
import PushPayloads
import TestSupport
import Testing

@testable import PushAttachExtension

/// The loader against a loopback origin: what it finds in a payload, what it downloads, what it
/// refuses, and that nothing is left behind but an accepted file.
@Suite("Extension: the attachment loader against a loopback origin", .ownThread, .tags(.slow), .notInFastTier)
struct AttachmentLoaderTests {
    /// Every convention's example payload, pointed at a JPEG on loopback, gives a `.jpg` and
    /// `public.jpeg`, found by that convention.
    @Test(arguments: PayloadConventions.all.filter { $0.name != nil }.map(\.key))
    func eachPayloadConventionLoads(key: String) async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let convention = try #require(PayloadConventions.all.first { $0.key == key })
        let json = convention.example.replacingOccurrences(
            of: PayloadConventions.exampleURL, with: origin.url("/img/photo.jpg"))
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let loaded = await origin.load(payload)
        #expect(loaded.reason == nil)
        #expect(loaded.media?.convention == convention.name)
        #expect(loaded.typeHint == "public.jpeg")
        let file = try #require(loaded.fileURL)
        #expect(file.lastPathComponent.hasSuffix("-photo.jpg"))
        #expect(try Data(contentsOf: file) == Origin.jpeg)
        #expect(origin.files == [file.lastPathComponent])
    }

    /// In a push, `url` is the link opened on tap (OneSignal), not media: nothing to load.
    @Test func aURLKeyAloneIsNoMedia() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let loaded = await origin.load(["aps": ["alert": "hi"], "url": origin.url("/img/photo.jpg")])
        #expect(loaded.fileURL == nil)
        #expect(loaded.refusal == .noMediaURL(senderNote: nil))
        #expect(AttachmentRefusal.pushKeys.hasPrefix("attachment, attachment-url, media_url, "))
        #expect(origin.server.hits("/img/photo.jpg") == 0)
    }

    /// iOS types a file by its name: a URL without an extension still gives `<UUID>-photo.jpg`.
    @Test func aURLWithoutAnExtensionGetsTheExtensionOfItsBytes() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let loaded = await origin.load(["media_url": origin.url("/img/photo"), "media_type": "image"])
        let file = try #require(loaded.fileURL, "\(loaded.reason ?? "")")
        #expect(file.lastPathComponent.wholeMatch(of: /[0-9A-F-]{36}-photo\.jpg/) != nil, "\(file.lastPathComponent)")
        #expect(file.deletingLastPathComponent().standardizedFileURL.path == origin.folder.standardizedFileURL.path)
        #expect(loaded.identifier == String(file.lastPathComponent.prefix(36)))
        #expect(loaded.typeHint == "public.jpeg")
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
    }

    /// An HTML page (an error page where the image should be) at `.jpg`: no file, and a reason
    /// that says what the bytes look like.
    @Test func anHTMLPageAtJPGIsRefused() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let loaded = await origin.load(["attachment-url": origin.url("/img/page.jpg")])
        #expect(loaded.fileURL == nil)
        #expect(loaded.typeHint == nil)
        #expect(loaded.refusal == .refused(.notMedia(.html)), "\(String(describing: loaded.refusal))")
        #expect(loaded.reason?.contains("DOCTYPE") == false, "nothing of the bytes is quoted")
        #expect(loaded.refusal?.errorCode == 101)
        #expect(origin.files.isEmpty, "\(origin.files)")
    }

    /// WebP is media, but not a type iOS attaches: refused, saying serve would convert it.
    @Test func webPIsRefusedAsConvertible() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let loaded = await origin.load(["attachment-url": origin.url("/img/cat.webp")])
        #expect(loaded.refusal == .needsPreparing(format: .webp, action: .convert, iosCode: .unrecognizedType))
        #expect(origin.files.isEmpty)
    }

    /// An origin that has not answered when the budget runs out: the load returns while the
    /// origin still holds the download, refused as timed out, and leaves nothing in the folder.
    /// (How long it takes is measured by the examples' extension check, which prints it.)
    @Test func anOriginSlowerThanTheBudgetIsCancelledInTime() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let gate = origin.server.hold("/slow/photo.jpg", .bytes(Origin.jpeg, contentType: "image/jpeg"))
        defer { gate.open() }
        let loaded = await origin.load(["media_url": origin.url("/slow/photo.jpg")], within: .seconds(1))
        #expect(loaded.refusal == .timedOut(budget: .seconds(1)))
        #expect(gate.current.passed == 0, "the budget ended the load: the origin still holds the download")
        #expect(origin.files.isEmpty, "\(origin.files)")
    }

    /// A body cut off mid-way by the budget: the part written so far is removed.
    @Test func aBodyCutByTheBudgetLeavesNoPart() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let gate = origin.server.hold(
            "/slow/half.jpg", sendingFirst: Origin.jpeg.count / 2, .bytes(Origin.jpeg, contentType: "image/jpeg"))
        let load = Task { await origin.load(["media_url": origin.url("/slow/half.jpg")], within: .seconds(5)) }
        _ = await gate.wait { $0.waiting == 1 }
        let parts = origin.files
        let loaded = await load.value
        #expect(loaded.refusal == .timedOut(budget: .seconds(5)))
        #expect(parts.count == 1 && parts[0].hasSuffix(".download"), "the part being written: \(parts)")
        #expect(origin.files.isEmpty, "\(origin.files)")
    }

    /// Cancelling the calling task (what the service does when the extension's time runs out)
    /// cancels the download: refused as cancelled, nothing left.
    @Test func cancellingTheTaskCancelsTheDownload() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let gate = origin.server.hold(
            "/slow/held.jpg", sendingFirst: 1000, .bytes(Origin.jpeg, contentType: "image/jpeg"))
        let load = Task { await origin.load(["media_url": origin.url("/slow/held.jpg")]) }
        _ = await gate.wait { $0.waiting == 1 }
        #expect(origin.files.count == 1, "the part being written: \(origin.files)")
        load.cancel()
        let loaded = await load.value
        #expect(loaded.refusal == .cancelled)
        #expect(origin.files.isEmpty, "\(origin.files)")
    }

    /// A declared length over the cap of the body's kind is refused from the first bytes: the
    /// origin still holds the rest when the load has returned.
    @Test func aDeclaredLengthOverTheCapIsRefusedBeforeTheBody() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let big = Origin.jpeg + TestHTTPServer.pattern(200_000)
        let gate = origin.server.hold("/img/big.jpg", sendingFirst: 1000, .bytes(big, contentType: "image/jpeg"))
        var settings = AttachmentLoader.Settings()
        settings.rules.imageByteCap = 100_000
        let loaded = await origin.load(["media_url": origin.url("/img/big.jpg")], settings: settings)
        #expect(loaded.refusal == .refused(.overCap(.ios(.image, cap: 100_000), bytes: big.count, atLeast: false)))
        #expect(loaded.refusal?.errorCode == 102)
        #expect(gate.current.passed == 0, "the rest of the body was never asked for")
        #expect(origin.files.isEmpty)
    }

    /// A declared length over every cap is refused before any of the body.
    @Test func aDeclaredLengthOverEveryCapIsRefusedFromTheHeaders() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        origin.server.route("/img/huge") { _ in
            TestHTTPServer.Response(status: 200, body: .declaredLength(60_000_000, actual: Origin.jpeg))
        }
        let loaded = await origin.load(["media_url": origin.url("/img/huge")])
        #expect(loaded.refusal == .refused(.overCap(.anyMedia(cap: 50_000_000), bytes: 60_000_000, atLeast: false)))
        #expect(origin.files.isEmpty)
    }

    /// A body with no declared length is stopped as it streams past the cap: an endless one
    /// returns, refused as too large rather than timed out.
    @Test func aStreamingBodyIsStoppedAtTheCap() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        var settings = AttachmentLoader.Settings()
        settings.rules.imageByteCap = 1_000_000
        let loaded = await origin.load(["media_url": origin.url("/endless")], settings: settings)
        // Endless text: stopped at the cap, refused for what its first bytes are.
        #expect(loaded.refusal == .refused(.notMedia(.text)))
        #expect(origin.files.isEmpty)
    }

    @Test func redirectsAreFollowedUpToTheLimit() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let followed = await origin.load(["media_url": origin.url("/redirect/5/img/photo")])
        #expect(followed.typeHint == "public.jpeg", "\(followed.reason ?? "")")
        #expect(followed.fileURL?.lastPathComponent.hasSuffix("-photo.jpg") == true)
        for file in origin.files { try FileManager.default.removeItem(at: origin.folder.appendingPathComponent(file)) }

        let tooMany = await origin.load(["media_url": origin.url("/redirect/6/img/photo")])
        #expect(tooMany.refusal == .tooManyRedirects(limit: 5))
        #expect(origin.files.isEmpty)
    }

    /// The allowed hosts hold for the URL and for every redirect. Nothing is fetched from a host
    /// outside them (the refusal comes before any connection).
    @Test func allowedHostsHoldOnEveryHop() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let settings = AttachmentLoader.Settings(allowedHosts: ["127.0.0.1"])
        let elsewhere = "http://localhost.invalid:\(origin.server.port)/img/photo"
        let redirected = await origin.load(
            [
                "media_url": origin.url(
                    "/redirect-to?url=" + elsewhere.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            ],
            settings: settings)
        #expect(redirected.refusal == .hostNotAllowed(host: "localhost.invalid"))
        let direct = await origin.load(["media_url": elsewhere], settings: settings)
        #expect(direct.refusal == .hostNotAllowed(host: "localhost.invalid"))
        let allowed = await origin.load(["media_url": origin.url("/img/photo")], settings: settings)
        #expect(allowed.typeHint == "public.jpeg")
    }

    /// The folder may not exist yet (an app group's `Images/`): it is made, and only the file is
    /// in it.
    @Test func anAppGroupFolderIsMadeAndHoldsOnlyTheFile() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let group = origin.folder.appendingPathComponent("group.com.example.app/Library/Images")
        let loaded = await AttachmentLoader().load(
            userInfo: ["aps": ["mutable-content": 1], "attachment-url": origin.url("/img/photo")], into: group,
            within: .seconds(60))
        let file = try #require(loaded.fileURL, "\(loaded.reason ?? "")")
        #expect(file.deletingLastPathComponent().standardizedFileURL.path == group.standardizedFileURL.path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: group.path) == [file.lastPathComponent])
    }

    /// A push that names a serve link and the origin's URL loads the link, names the file after
    /// the link's source, and takes serve's `X-Attachment-Type-Hint` when it names the bytes'
    /// format more precisely.
    @Test func aServeLinkIsPreferredAndItsTypeHintHeaderUsed() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let jpegLink = serveLinkPath(source: "https://cdn.example.com/media/cat.webp", query: "type=image")
        origin.server.route(String(jpegLink.prefix { $0 != "?" })) { _ in
            var response = TestHTTPServer.Response.bytes(Origin.jpeg, contentType: "image/jpeg")
            response.headers.append(("X-Attachment-Type-Hint", "public.jpeg"))
            return response
        }
        let loaded = await origin.load([
            "aps": ["mutable-content": 1], "media_url": origin.url("/img/cat.webp"), "media_type": "image/webp",
            "attachment-url": origin.url(jpegLink),
        ])
        #expect(loaded.media?.isServeLink == true)
        #expect(loaded.media?.source.absoluteString == "https://cdn.example.com/media/cat.webp")
        #expect(loaded.typeHint == "public.jpeg")
        #expect(
            loaded.fileURL?.lastPathComponent.hasSuffix("-cat.jpg") == true, "\(String(describing: loaded.fileURL))")
        #expect(origin.server.hits("/img/cat.webp") == 0, "the origin's URL is not fetched")

        let mpegLink = serveLinkPath(source: "https://cdn.example.com/media/clip.m2v")
        origin.server.route(mpegLink) { _ in
            var response = TestHTTPServer.Response.bytes(Origin.mpeg, contentType: "video/mpeg")
            response.headers.append(("X-Attachment-Type-Hint", "public.mpeg-2-video"))
            return response
        }
        let movie = await origin.load(["attachment-url": origin.url(mpegLink)])
        #expect(movie.typeHint == "public.mpeg-2-video", "\(movie.reason ?? "")")
        #expect(movie.fileURL?.pathExtension == "mpg")
    }

    /// serve's refusal (422, its JSON problem) is the reason given.
    @Test func aServeRefusalGivesServesReason() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let link = serveLinkPath(source: "https://cdn.example.com/notes.txt")
        let problem = #"{"error":"rejected","errorCode":101,"reason":"the bytes are text, not media","status":422}"#
        origin.server.route(link) { _ in .bytes(Data(problem.utf8), contentType: "application/json", status: 422) }
        let loaded = await origin.load(["attachment-url": origin.url(link)])
        #expect(
            loaded.refusal
                == .httpStatus(422, url: origin.url(link), serverReason: "the bytes are text, not media"))
        #expect(origin.files.isEmpty)
    }

    /// `prepare --rewrite` removes refused media and notes why: that note is the reason.
    @Test func aRewrittenPayloadsNoteIsTheReason() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let note = "https://cms.example.com/x.txt: not media"
        let loaded = await origin.load(["aps": ["mutable-content": 1], "pushattach_error": note])
        #expect(loaded.refusal == .noMediaURL(senderNote: note))
        #expect(loaded.reason == "the sender's batch refused the media: \(note)")
    }

    @Test func anOriginErrorIsItsStatus() async throws {
        let origin = try Origin()
        defer { origin.stop() }
        let loaded = await origin.load(["media_url": origin.url("/status/404")])
        #expect(loaded.refusal == .httpStatus(404, url: origin.url("/status/404"), serverReason: nil))
        #expect(origin.files.isEmpty)
    }
}
