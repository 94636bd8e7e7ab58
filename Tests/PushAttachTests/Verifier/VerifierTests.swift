import Foundation
import PushAttach
import TestSupport
import Testing

@Suite struct VerifierTests {
    @Test func aJPEGIsAccepted() async throws {
        let report = await AttachmentVerifier().verify(fileAt: Corpus.url(Fixtures.jpeg))
        #expect(report.verdict == .accepted)
        #expect(report.isAccepted)
        #expect(report.errorCode == nil)
        #expect(report.format == .jpeg)
        #expect(report.typeHint == "public.jpeg")
        #expect(report.pixelSize != nil)
    }

    @Test func aWebPIsToBeTranscoded() async throws {
        let report = await AttachmentVerifier().verify(fileAt: Corpus.url(Fixtures.webp))
        #expect(report.verdict == .transcode)
        #expect(report.format == .webp)
        #expect(report.transcodeTarget != nil)
        #expect(report.errorCode == nil)
        let fromData = await AttachmentVerifier().verify(data: try Corpus.data(Fixtures.webp), fileExtension: "webp")
        #expect(fromData.verdict == .transcode)
        #expect(fromData.path == nil)
    }

    @Test func aBrokenFileIsRejected() async throws {
        let report = await AttachmentVerifier().verify(fileAt: Corpus.url(Fixtures.broken))
        #expect(report.verdict == .rejected)
        #expect(report.errorCode != nil)
        #expect(report.reason != nil)
        let missing = await AttachmentVerifier().verify(fileAt: URL(fileURLWithPath: "/nonexistent/x.jpg"))
        #expect(missing.verdict == .rejected)
    }
}
