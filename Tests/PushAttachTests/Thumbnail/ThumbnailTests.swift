import Foundation
import PushAttach
import TestSupport
import Testing

@Suite struct ThumbnailTests {
    /// A cancelled task gets `.cancelled` (`isCancellation`), not a thumbnail.
    @Test func aCancelledCallEndsAsACancellation() async throws {
        let photo = try Corpus.data(Fixtures.photo)
        let gate = AsyncStream.makeStream(of: Void.self)
        let task = Task { () -> AttachmentError? in
            for await _ in gate.stream { break }  // runs on once cancelled
            do throws(AttachmentError) {
                _ = try await Thumbnail.image(from: photo, maxSide: 256)
                return nil
            } catch {
                return error
            }
        }
        task.cancel()
        gate.continuation.finish()
        let error = await task.value
        #expect(error?.kind == .cancelled)
        #expect(error?.isCancellation == true)
        #expect(error?.isRetryable == false)
    }

    @Test func aPhotoThumbnailIsDecodedAtReducedScale() async throws {
        let photo = try Corpus.data(Fixtures.photo)
        let thumbnail = try await Thumbnail.image(from: photo, maxSide: 256)
        #expect(max(thumbnail.size.width, thumbnail.size.height) <= 256)
        #expect(max(thumbnail.size.width, thumbnail.size.height) >= 200)
        #expect(thumbnail.format == .jpeg)
        #expect(thumbnail.data.starts(with: [0xFF, 0xD8, 0xFF]))
        // Shrink-on-load: the decode itself is at a DCT scale, never at full size.
        #expect(thumbnail.steps.contains { $0.hasPrefix("decoded at 1/") }, "\(thumbnail.steps)")
        let report = await AttachmentVerifier().verify(data: thumbnail.data, fileExtension: "jpg")
        #expect(report.pixelSize == thumbnail.size)
    }

    @Test func badInputsThrow() async throws {
        let notImage = await #expect(throws: AttachmentError.self) {
            try await Thumbnail.image(from: Data("hello".utf8), maxSide: 256)
        }
        #expect(notImage?.kind == .rejected)
        let badSide = await #expect(throws: AttachmentError.self) {
            try await Thumbnail.image(from: try Corpus.data(Fixtures.photo), maxSide: 0)
        }
        #expect(badSide?.kind == .invalidArgument)
    }

    /// Never the input handed back: an image already inside the box is encoded anew (a JPEG
    /// that fits, a PNG with alpha as PNG), and an animated GIF gives its first frame, a still.
    @Test func theThumbnailIsAlwaysANewStill() async throws {
        let small = try Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))
        let jpeg = try await Thumbnail.image(from: small, maxSide: 1024)
        #expect(jpeg.data != small && jpeg.format == .jpeg && jpeg.size == PixelSize(width: 320, height: 240))

        let alpha = try Data(contentsOf: Corpus.testImages.appendingPathComponent("alpha-256x256.png"))
        let png = try await Thumbnail.image(from: alpha, maxSide: 64)
        #expect(png.format == .png && png.size == PixelSize(width: 64, height: 64))

        let gif = try Data(contentsOf: Corpus.testImages.appendingPathComponent("animated-120x90.gif"))
        let still = try await Thumbnail.image(from: gif, maxSide: 60)
        #expect(still.format == .jpeg || still.format == .png, "\(still.format)")
        #expect(still.size == PixelSize(width: 60, height: 45))
        #expect(!still.warnings.contains { $0.contains("only the first frame") }, "\(still.warnings)")
        let report = await AttachmentVerifier().verify(data: still.data, fileExtension: still.format.fileExtension)
        #expect(report.frames == 1 && report.isAccepted, "\(report)")
    }
}
