import Fetch
import PushPayloads
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// The parser itself is Fetch's (`Tests/FetchTests/ContentDispositionTests.swift`); here, that
/// its raw, untrusted result goes through the container's sanitiser.
@Suite("Content-Disposition filenames into attachment names", .tags(.slow), .notInFastTier)
struct ContentDispositionTests {
    @Test func feedsTheSanitiser() {
        let suggested = ContentDisposition.filename(from: #"attachment; filename="../../etc/passwd""#)
        let name = AttachmentName(url: "https://x.test/a.jpg", suggestedFilename: suggested, fileExtension: "jpg")
        #expect(name.baseName == "passwd")
    }
}
