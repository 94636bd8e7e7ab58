import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// "top reasons" groups: the status, the code and the word for what refused the item or kept its
/// bytes from being had, never its prose, so sizes and URLs that differ per item do not split a group.
@Suite(.tags(.slow), .notInFastTier) struct ReasonKeyTests {
    @Test func entriesRefusedForOneReasonAreOneGroupWhateverTheirSizesAndURLs() {
        let overCap = [7_000_000, 19_819_914].map { bytes in
            var entry = ManifestEntry(input: "http://h/\(bytes).wav", line: 1, status: .failed)
            entry.refuse(.overCap(.ios(.audio, cap: 5_000_000), bytes: bytes, atLeast: false), names: .library)
            return entry
        }
        #expect(overCap[0].reason != overCap[1].reason, "the reasons name each size")
        #expect(Set(overCap.map(PrepareSummary.reasonKey)) == ["rejected 102 over-cap"])

        var missing = ManifestEntry(input: "http://h/a.jpg", line: 2, status: .failed)
        missing.fail(.download(.httpStatus(url: "http://h/a.jpg", status: 404)), reason: "HTTP 404 from http://h/a.jpg")
        #expect(PrepareSummary.reasonKey(missing) == "failed http-404")

        var line = ManifestEntry(input: "list.txt", line: 7, status: .failed, failure: ItemFailure.input.key, reason: "not a URL")
        line.reason = "expected 'URL [media_type]', found 3 fields"
        #expect(PrepareSummary.reasonKey(line) == "failed input")
        #expect(PrepareSummary.reasonKey(ManifestEntry(input: "x", line: 0, status: .prepared)) == nil)
    }
}
