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
        // A file that cannot be read is not refused for its bytes: they were never had.
        let missing = await AttachmentVerifier().verify(fileAt: URL(fileURLWithPath: "/nonexistent/x.jpg"))
        #expect(missing.verdict == .failed && missing.errorCode == nil)
    }

    /// The report is the preparer's plan: an animated WebP becomes a GIF (not a JPEG), a JPEG
    /// stored sideways is reported upright, and what iOS would do as it is comes beside it.
    @Test func theReportIsThePlan() async throws {
        let webp = Corpus.testImages.appendingPathComponent("animated-120x90.webp")
        let animated = await AttachmentVerifier().verify(fileAt: webp)
        #expect(animated.verdict == .transcode && animated.action == .reencodeAnimation)
        #expect(animated.transcodeTarget == .gif)
        #expect(animated.iosErrorCode == .unrecognizedType)

        // Landscape_6: stored 600x900 (portrait), Exif 6 turns it to a 900x600 landscape.
        let turned = await AttachmentVerifier().verify(fileAt: Corpus.url("orientation/Landscape_6.jpg"))
        #expect(turned.pixelSize == PixelSize(width: 900, height: 600), "\(String(describing: turned.pixelSize))")
        #expect(turned.action == .fit && turned.iosErrorCode == nil)

        let named = await AttachmentVerifier().verify(fileAt: Corpus.testImages.appendingPathComponent("jpeg-named.png"))
        #expect(named.verdict == .transcode && named.action == .rename && named.transcodeTarget == .jpeg)
        #expect(named.iosErrorCode == .unrecognizedType)
    }
}
