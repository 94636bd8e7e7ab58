import Foundation
import PushAttach
import TestSupport
import Testing

@Suite struct ThumbnailTests {
    @Test func aPhotoThumbnailIsDecodedAtReducedScale() async throws {
        let photo = try Corpus.data(Fixtures.photo)
        let thumbnail = try await Thumbnail.jpeg(from: photo, maxSide: 256)
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
            try await Thumbnail.jpeg(from: Data("hello".utf8), maxSide: 256)
        }
        #expect(notImage?.kind == .rejected)
        let badSide = await #expect(throws: AttachmentError.self) {
            try await Thumbnail.jpeg(from: try Corpus.data(Fixtures.photo), maxSide: 0)
        }
        #expect(badSide?.kind == .invalidArgument)
    }
}
