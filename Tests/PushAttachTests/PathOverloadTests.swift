import Foundation
import PushAttach
import TestSupport
import Testing

/// The contract's calls compile and agree whether they are given URLs or paths, Data or bytes.
@Suite struct PathOverloadTests {
    @Test func verifyByPathEqualsByURL() async throws {
        let jpeg = try #require(Corpus.files(in: "photos", extensions: ["jpg"]).first)
        let byURL = await AttachmentVerifier().verify(fileAt: jpeg)
        let byPath = await AttachmentVerifier().verify(fileAt: jpeg.path)
        #expect(byURL.verdict == byPath.verdict)
        #expect(byURL.errorCode == byPath.errorCode)
    }

    @Test func thumbnailFromBytesEqualsFromData() async throws {
        let jpeg = try #require(Corpus.files(in: "photos", extensions: ["jpg"]).first)
        let data = try Data(contentsOf: jpeg)
        let fromData = try await Thumbnail.image(from: data, maxSide: 128)
        let fromBytes = try await Thumbnail.image(from: [UInt8](data), maxSide: 128)
        #expect(fromData.data == fromBytes.data)
        #expect(fromData.size == fromBytes.size)
        #expect(max(fromBytes.size.width, fromBytes.size.height) <= 128)
    }
}
