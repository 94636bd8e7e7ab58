import Foundation
import MediaTypes
import TestSupport
import Testing

@testable import PushAttachExtension

/// The one decision about a downloaded file, on facts alone: one test per acceptance and
/// refusal, and where the type hint comes from.
@Suite("Extension: the decision about a downloaded file", .tags(.slow), .notInFastTier)
struct AttachmentDecisionTests {
    func facts(
        _ bytes: Data, byteCount: Int? = nil, claims: [TypeClaim] = [], serveTypeHint: String? = nil
    ) -> AttachmentDecision.Facts {
        let array = [UInt8](bytes)
        return AttachmentDecision.Facts(
            media: MediaFacts(window: array, byteCount: byteCount ?? array.count, claims: claims),
            serveTypeHint: serveTypeHint)
    }

    static let standard = AttachmentDecision.policy(for: .standard)

    func accepted(_ outcome: AttachmentDecision.Outcome) -> AttachmentDecision.Accepted? {
        if case .accept(let accepted) = outcome { return accepted }
        return nil
    }

    @Test func aJPEGIsAcceptedAsItIs() throws {
        let outcome = AttachmentDecision.decide(
            facts(Origin.jpeg, claims: [TypeClaim(.mediaType, "image")]), policy: Self.standard)
        #expect(
            outcome
                == .accept(.init(format: .jpeg, typeHint: "public.jpeg", fileExtension: "jpg", warnings: [])))
    }

    @Test func bytesNoFormatClaimsAreNotMediaSayingWhatTheyLookLike() {
        let outcome = AttachmentDecision.decide(facts(Data(#"{"error":"token expired"}"#.utf8)), policy: Self.standard)
        #expect(outcome == .refuse(.refused(.notMedia(.json))))
        // Nothing of the bytes is quoted.
        if case .refuse(let refusal) = outcome { #expect(!refusal.description.contains("token expired")) }
    }

    @Test func formatsIOSDoesNotAttachAreRefusedSayingWhetherServeConverts() {
        #expect(
            AttachmentDecision.decide(facts(Origin.webp), policy: Self.standard)
                == .refuse(.needsPreparing(format: .webp, action: .convert, iosCode: .unrecognizedType)))
        let flac = Data("fLaC".utf8) + Data([0x00, 0x00, 0x00, 0x22]) + Data(count: 200)
        #expect(
            AttachmentDecision.decide(facts(flac), policy: Self.standard)
                == .refuse(.refused(.notAccepted(.flac, tracks: []))))
    }

    @Test func overTheCapOfItsKindIsRefused() {
        var rules = AppleRules.standard
        rules.imageByteCap = 10_000
        #expect(
            AttachmentDecision.decide(facts(Origin.jpeg), policy: AttachmentDecision.policy(for: rules))
                == .refuse(.refused(.overCap(.ios(.image, cap: 10_000), bytes: Origin.jpeg.count, atLeast: false))))
    }

    @Test func aDamagedHeaderIsRefused() {
        // A PNG signature and an IHDR chunk that says 0x0.
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data("IHDR".utf8)
        png += Data([0, 0, 0, 0, 0, 0, 0, 0, 8, 2, 0, 0, 0, 0, 0, 0, 0])
        guard case .refuse(.refused(.damaged(let format, _))) = AttachmentDecision.decide(facts(png), policy: Self.standard)
        else {
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
                    facts(Origin.mpeg, claims: [TypeClaim(.mediaType, "public.mpeg-2-video")]), policy: Self.standard)))
        #expect(precise.typeHint == "public.mpeg-2-video")
        #expect(precise.fileExtension == "mpg")
        // A coarse hint ("video") agrees but names no format: the format's UTI.
        let coarse = try #require(
            accepted(
                AttachmentDecision.decide(
                    facts(Origin.mpeg, claims: [TypeClaim(.mediaType, "video")]), policy: Self.standard)))
        #expect(coarse.typeHint == "public.mpeg")
        // serve's header is taken like media_type, before it.
        let served = try #require(
            accepted(
                AttachmentDecision.decide(facts(Origin.mpeg, serveTypeHint: "public.mpeg-2-video"), policy: Self.standard)))
        #expect(served.typeHint == "public.mpeg-2-video")
    }

    @Test func claimsThatDisagreeAreWarningsAndTheBytesWin() throws {
        let outcome = AttachmentDecision.decide(
            facts(
                Origin.jpeg, claims: [TypeClaim(.mediaType, "video"), TypeClaim(.urlExtension, "png")],
                serveTypeHint: "public.png"),
            policy: Self.standard)
        let file = try #require(accepted(outcome))
        #expect(file.typeHint == "public.jpeg")
        #expect(file.fileExtension == "jpg")
        #expect(file.warnings.count == 3, "\(file.warnings)")
        #expect(file.warnings.last?.hasPrefix("X-Attachment-Type-Hint \"public.png\" disagrees") == true)
    }

    @Test func refusalsRenderAndCarryTheirCode() {
        #expect(
            AttachmentRefusal.refused(.overCap(.ios(.image, cap: 10_000_000), bytes: 19_819_914, atLeast: false)).description
                == "19.8 MB, over the 10 MB cap for images iOS sets; make the file smaller")
        #expect(
            AttachmentRefusal.refused(.overCap(.anyMedia(cap: 50_000_000), bytes: 50_000_000, atLeast: true)).description
                == "more than 50 MB, over the 50 MB cap for any attachment; make the file smaller")
        #expect(AttachmentRefusal.timedOut(budget: .milliseconds(2500)).description.contains("2.5 s"))
        #expect(AttachmentRefusal.needsPreparing(format: .webp, action: .convert, iosCode: .unrecognizedType).errorCode == 101)
        #expect(AttachmentRefusal.refused(.damaged(.png, .data(detail: "x"))).errorCode == 105)
        #expect(AttachmentRefusal.timedOut(budget: .seconds(1)).errorCode == nil)
    }
}
