import Foundation
import MediaTypes
import TestSupport
import Testing
import Verification

/// `MediaCheck.facts(_: Data, …)` sniffs audio and video from their header window and size (a
/// spooled movie is never read into memory), and a JPEG from its segments up to the start of
/// frame, and must find exactly what a sniff of the whole file finds, and so get the same plan.
@Suite("facts from a header window")
struct HeaderWindowTests {
    /// Every corpus file whose first bytes say audio or video.
    static let audioVideo: [URL] = Corpus.folders.flatMap { Corpus.files(in: $0) }.filter { file in
        guard let data = try? Data(contentsOf: file) else { return false }
        return Sniffer.headerWindow(prefix: [UInt8](data.prefix(16_384))) != nil
    }

    @Test func theCorpusHasAudioAndVideo() {
        #expect(Self.audioVideo.count >= 4, "found \(Self.audioVideo.map(\.lastPathComponent))")
    }

    /// Each file grown past the window (zeros appended, as the rest of a long movie would be):
    /// the windowed judgement equals the whole-file one, verdict, reason and facts.
    @Test(arguments: audioVideo)
    func windowedEqualsWhole(file: URL) throws {
        var data = try Data(contentsOf: file)
        data.append(Data(count: 3 << 20))
        let window = try #require(Sniffer.headerWindow(prefix: [UInt8](data.prefix(16_384))))
        #expect(window < data.count)
        let policy = AttachmentPolicy()
        let windowed = MediaCheck.facts(data, fileExtension: file.pathExtension, policy: policy, readingImage: false)
        let whole = MediaFacts(bytes: [UInt8](data), fileExtension: file.pathExtension)
        #expect(windowed == whole, "\(file.lastPathComponent)")
        #expect(Planner.plan(windowed, policy: policy) == Planner.plan(whole, policy: policy))
    }

    /// A movie over the video cap is refused for its size although only its header was read.
    @Test func sizeComesFromTheWholeFile() throws {
        let ftyp: [UInt8] = [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isommp41".utf8)
        let mdat: [UInt8] = [0, 0, 0, 8] + Array("mdat".utf8)
        var data = Data(ftyp + mdat)
        data.append(Data(count: AppleRules.standard.byteCap(for: .movie) + 1 - data.count))
        let planned = MediaCheck.plan(data, fileExtension: "mp4", policy: AttachmentPolicy())
        #expect(planned.facts.format == .mp4)
        #expect(planned.plan.refusal == .overCap(.ios(.movie, cap: 50_000_000), bytes: data.count, atLeast: false))
        #expect(planned.plan.code == .invalidFileSize)
    }

    /// An MP3 behind a 3 MB ID3 tag (cover art): the window reaches past the tag to the first
    /// frame, so it is still recognised as MP3, and the tag is read no further than that.
    @Test func windowReachesPastALargeID3Tag() throws {
        let tagSize = 3 << 20
        let syncsafe = (0..<4).map { UInt8((tagSize >> (7 * (3 - $0))) & 0x7F) }
        let tag: [UInt8] = Array("ID3".utf8) + [4, 0, 0] + syncsafe + [UInt8](repeating: 0x20, count: tagSize)
        // MPEG-1 layer III frames, 128 kbps, 44.1 kHz: 417 bytes each.
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 413)
        let data = Data(tag + Array((0..<2000).map { _ in frame }.joined()))
        let window = try #require(Sniffer.headerWindow(prefix: [UInt8](data.prefix(64))))
        #expect(window > 10 + tagSize + 2 * frame.count)
        #expect(window < data.count)
        let planned = MediaCheck.plan(data, fileExtension: "mp3", policy: AttachmentPolicy())
        #expect(planned.plan.action == .passThrough, "\(planned.plan)")
        #expect(planned.facts.format == .mp3)
        #expect(planned.facts.sniffed.detail == "ID3v2")
    }

    /// Every corpus file that starts like a JPEG (broken ones too), and the bundled test images.
    static let jpegs: [URL] = (Corpus.folders.flatMap { Corpus.files(in: $0) }
        + ((try? FileManager.default.contentsOfDirectory(at: Corpus.testImages, includingPropertiesForKeys: nil)) ?? []))
        .filter { file in
            guard let data = try? Data(contentsOf: file) else { return false }
            return Sniffer.identify(prefix: [UInt8](data.prefix(Sniffer.identifyPrefixLength))) == .jpeg
        }

    @Test func theCorpusHasJPEGs() {
        #expect(Self.jpegs.count >= 20, "found \(Self.jpegs.map(\.lastPathComponent))")
    }

    /// A JPEG is judged from its segments up to the start of frame: whole, and cut short at
    /// points before, inside and after its header (the cut files fail or pass as the whole-file
    /// judgement says), the windowed judgement equals the whole-file one.
    @Test(arguments: jpegs)
    func jpegWindowEqualsWhole(file: URL) throws {
        let whole = try Data(contentsOf: file)
        let window = whole.withUnsafeBytes { Sniffer.jpegHeaderWindow($0) }
        var cuts = [whole.count, whole.count / 2, 2, 4, 100, 1000]
        if let window { cuts += [window - 1, window, window + 1] }
        let policy = AttachmentPolicy()
        for cut in Set(cuts) where cut > 0 && cut <= whole.count {
            let data = whole.prefix(cut)
            let windowed = MediaCheck.facts(data, fileExtension: "jpg", policy: policy, readingImage: false)
            let read = MediaFacts(bytes: [UInt8](data), fileExtension: "jpg")
            #expect(windowed == read, "\(file.lastPathComponent) cut at \(cut)")
            #expect(
                Planner.plan(windowed, policy: policy) == Planner.plan(read, policy: policy),
                "\(file.lastPathComponent) cut at \(cut)")
        }
    }

    /// The window of a photo is its header, not the file: what `prepare` copies, not the whole file.
    @Test func aPhotoIsJudgedFromItsHeader() throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent("photo-1600x1200.jpg"))
        let window = try #require(data.withUnsafeBytes { Sniffer.jpegHeaderWindow($0) })
        #expect(window > 0 && window < 4096, "window \(window) of \(data.count) bytes")
        #expect(data.withUnsafeBytes { Sniffer.jpegHeaderWindow($0) } == window)
        let notJPEG = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(notJPEG.withUnsafeBytes { Sniffer.jpegHeaderWindow($0) } == nil)
        // Start of image and an APP0 segment, no frame yet: no window, the whole file words it.
        let noFrame = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00])
        #expect(noFrame.withUnsafeBytes { Sniffer.jpegHeaderWindow($0) } == nil)
    }
}
