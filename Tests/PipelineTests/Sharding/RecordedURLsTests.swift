import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// `RecordedURLs`, the run's per-URL state once an item is in the journal: every URL found again
/// with its span, line and input after many growths, in fixed bytes whatever the URL's length.
@Suite("dedupe table: recorded URLs in fixed bytes", .tags(.slow), .notInFastTier)
struct RecordedURLsTests {
    @Test func everyURLIsFoundWithItsSpanAfterGrowing() {
        var table = RecordedURLs()
        let count = 50_000
        for i in 0..<count {
            let line = ManifestJournal.Appended(offset: i * 300, length: 200 + i % 50, recreated: false)
            let inserted = table.insert("https://x.test/\(i).jpg", line: line, firstLine: i + 1, source: Int32(i % 3))
            #expect(inserted)
        }
        #expect(table.count == count)
        for i in stride(from: 0, to: count, by: 7) {
            let found = table["https://x.test/\(i).jpg"]
            #expect(found?.line == ManifestJournal.Appended(offset: i * 300, length: 200 + i % 50, recreated: false))
            #expect(found?.firstLine == i + 1)
            #expect(found?.source == Int32(i % 3))
        }
        #expect(table["https://x.test/\(count).jpg"] == nil)
        #expect(table["https://x.test/0.jpeg"] == nil)
    }

    @Test func numbersTheSlotCannotHoldAreRefusedNotTruncated() {
        var table = RecordedURLs()
        let big = ManifestJournal.Appended(offset: 0, length: 1 << 24, recreated: false)
        let tooLong = table.insert("https://x.test/a", line: big, firstLine: 1, source: 0)
        let far = ManifestJournal.Appended(offset: 1 << 40, length: 10, recreated: false)
        let tooFar = table.insert("https://x.test/b", line: far, firstLine: 1, source: 0)
        let fine = ManifestJournal.Appended(offset: (1 << 40) - 1, length: (1 << 24) - 1, recreated: false)
        let manyInputs = table.insert("https://x.test/c", line: fine, firstLine: 1, source: 70_000)
        let fits = table.insert("https://x.test/d", line: fine, firstLine: 1, source: 65_535)
        #expect(!tooLong && !tooFar && !manyInputs && fits)
        #expect(table["https://x.test/d"]?.line == fine)
        #expect(table["https://x.test/a"] == nil && table.count == 1)
    }

    @Test func aSlotIsTheSameSizeForAnyURL() {
        // 10-byte digest, 8-byte span, 4-byte line, 2-byte input: no URL string is kept.
        #expect(RecordedURLs.bytesPerSlot == 24)
        var short = RecordedURLs()
        var long = RecordedURLs()
        let line = ManifestJournal.Appended(offset: 0, length: 1, recreated: false)
        let path = String(repeating: "p", count: 2000)
        for i in 0..<10_000 {
            _ = short.insert("h://\(i)", line: line, firstLine: 1, source: 0)
            _ = long.insert("https://x.test/\(path)/\(i)", line: line, firstLine: 1, source: 0)
        }
        // Open addressing at most 4/5 full and at least 8/15 after growing: under 2 slots per URL
        // (plus 16 tables' first 64), for 2,000-byte URLs as for 6-byte ones.
        #expect(short.slotCapacity < 2 * 10_000 + 16 * 64 && long.slotCapacity < 2 * 10_000 + 16 * 64)
        #expect(short.slotCapacity > 10_000 && long.slotCapacity > 10_000)
    }
}

/// A run's dedupe table at a million URLs: at most 45 bytes per URL with the slack, whatever
/// the URLs. (Resident memory is measured by Scripts/memory-check.sh in a process of its own:
/// here other tests allocate beside it. Measured once, alone: +37 MB for these million URLs.)
@Suite("dedupe table: a million URLs", .tags(.slow), .notInFastTier)
struct RecordedURLsScaleTests {
    @Test func aMillionURLsTakeAtMost45BytesEach() {
        var table = RecordedURLs()
        let line = ManifestJournal.Appended(offset: 1 << 30, length: 600, recreated: false)
        for i in 0..<1_000_000 {
            _ = table.insert("http://127.0.0.1:8080/img/\(i).gif", line: line, firstLine: i + 1, source: 0)
        }
        #expect(table.count == 1_000_000)
        #expect(table["http://127.0.0.1:8080/img/999999.gif"]?.firstLine == 1_000_000)
        #expect(table["http://127.0.0.1:8080/img/1000000.gif"] == nil)
        #expect(table.slotCapacity * RecordedURLs.bytesPerSlot <= 45 * 1_000_000)
    }
}
