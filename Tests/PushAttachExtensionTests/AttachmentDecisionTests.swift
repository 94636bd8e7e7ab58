import Foundation
import MediaTypes
import Testing

@testable import PushAttachExtension

/// The one decision about a downloaded file, on facts alone: one test per acceptance and
/// refusal, and where the type hint comes from.
@Suite("Extension: the decision about a downloaded file")
struct AttachmentDecisionTests {
    func facts(
        _ bytes: Data, byteCount: Int? = nil, claims: [TypeClaim] = [], serveTypeHint: String? = nil
    ) -> AttachmentDecision.Facts {
        let array = [UInt8](bytes)
        return AttachmentDecision.Facts(
            sniffed: Result { () throws(SniffError) in try Sniffer.sniff(array) }, start: Array(array.prefix(64)),
            byteCount: byteCount ?? array.count, claims: claims, serveTypeHint: serveTypeHint)
    }

    func accepted(_ outcome: AttachmentDecision.Outcome) -> AttachmentDecision.Accepted? {
        if case .accept(let accepted) = outcome { return accepted }
        return nil
    }

    @Test func aJPEGIsAcceptedAsItIs() throws {
        let outcome = AttachmentDecision.decide(
            facts(Origin.jpeg, claims: [TypeClaim(.mediaType, "image")]), rules: .standard)
        #expect(
            outcome
                == .accept(.init(format: .jpeg, typeHint: "public.jpeg", fileExtension: "jpg", warnings: [])))
    }

    @Test func bytesNoFormatClaimsAreNotMediaSayingWhatTheyLookLike() {
        let outcome = AttachmentDecision.decide(facts(Data(#"{"error":"token expired"}"#.utf8)), rules: .standard)
        #expect(outcome == .refuse(.notMedia(looksLike: "JSON", start: #"{"error":"token "#)))
    }

    @Test func formatsIOSDoesNotAttachAreRefusedSayingWhetherServeConverts() {
        #expect(
            AttachmentDecision.decide(facts(Origin.webp), rules: .standard)
                == .refuse(.notAttachable(format: .webp, convertible: true)))
        let flac = Data("fLaC".utf8) + Data([0x00, 0x00, 0x00, 0x22]) + Data(count: 200)
        #expect(
            AttachmentDecision.decide(facts(flac), rules: .standard)
                == .refuse(.notAttachable(format: .flac, convertible: false)))
    }

    @Test func overTheCapOfItsKindIsRefused() {
        var rules = AppleRules.standard
        rules.imageByteCap = 10_000
        #expect(
            AttachmentDecision.decide(facts(Origin.jpeg), rules: rules)
                == .refuse(.tooLarge(category: .image, byteCount: Origin.jpeg.count, cap: 10_000)))
    }

    @Test func aDamagedHeaderIsRefused() {
        // A PNG signature and an IHDR chunk that says 0x0.
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data("IHDR".utf8)
        png += Data([0, 0, 0, 0, 0, 0, 0, 0, 8, 2, 0, 0, 0, 0, 0, 0, 0])
        guard case .refuse(.damaged(let format, _)) = AttachmentDecision.decide(facts(png), rules: .standard) else {
            Issue.record("expected damaged")
            return
        }
        #expect(format == .png)
    }

    @Test func theTypeHintIsAUTINamingTheBytesFormat() throws {
        // media_type as a UTI that says more than the format's own (.mpeg is public.mpeg).
        let precise = try #require(
            accepted(
                AttachmentDecision.decide(
                    facts(Origin.mpeg, claims: [TypeClaim(.mediaType, "public.mpeg-2-video")]), rules: .standard)))
        #expect(precise.typeHint == "public.mpeg-2-video")
        #expect(precise.fileExtension == "mpg")
        // A coarse hint ("video") agrees but names no format: the format's UTI.
        let coarse = try #require(
            accepted(
                AttachmentDecision.decide(
                    facts(Origin.mpeg, claims: [TypeClaim(.mediaType, "video")]), rules: .standard)))
        #expect(coarse.typeHint == "public.mpeg")
        // serve's header is taken like media_type, before it.
        let served = try #require(
            accepted(
                AttachmentDecision.decide(facts(Origin.mpeg, serveTypeHint: "public.mpeg-2-video"), rules: .standard)))
        #expect(served.typeHint == "public.mpeg-2-video")
    }

    @Test func claimsThatDisagreeAreWarningsAndTheBytesWin() throws {
        let outcome = AttachmentDecision.decide(
            facts(
                Origin.jpeg, claims: [TypeClaim(.mediaType, "video"), TypeClaim(.urlExtension, "png")],
                serveTypeHint: "public.png"),
            rules: .standard)
        let file = try #require(accepted(outcome))
        #expect(file.typeHint == "public.jpeg")
        #expect(file.fileExtension == "jpg")
        #expect(file.warnings.count == 3, "\(file.warnings)")
        #expect(file.warnings.last?.hasPrefix("X-Attachment-Type-Hint \"public.png\" disagrees") == true)
    }

    @Test func refusalsRenderAndCarryTheirCode() {
        #expect(
            AttachmentRefusal.tooLarge(category: .image, byteCount: 19_819_914, cap: 10_000_000).description
                == "19.8 MB, over iOS's 10 MB cap for images; pushattach serve or prepare fits images to it")
        #expect(
            AttachmentRefusal.tooLarge(category: nil, byteCount: nil, cap: 50_000_000).description
                == "more than 50 MB, over iOS's 50 MB cap for attachments")
        #expect(AttachmentRefusal.timedOut(budget: .milliseconds(2500)).description.contains("2.5 s"))
        #expect(AttachmentRefusal.notAttachable(format: .webp, convertible: true).errorCode == 101)
        #expect(AttachmentRefusal.damaged(format: .png, detail: "x").errorCode == 105)
        #expect(AttachmentRefusal.timedOut(budget: .seconds(1)).errorCode == nil)
    }
}
