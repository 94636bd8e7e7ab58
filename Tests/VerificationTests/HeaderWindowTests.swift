import Foundation
import MediaTypes
import TestSupport
import Testing
import Verification

/// `MediaCheck.identify(_: Data, …)` judges audio and video from their header window and size
/// (a spooled movie is never read into memory) and must say exactly what the whole-file
/// `identify(_: [UInt8], …)` says.
@Suite("identify from a header window")
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
        let windowed = MediaCheck.identify(data, fileExtension: file.pathExtension, policy: policy)
        let whole = MediaCheck.identify([UInt8](data), fileExtension: file.pathExtension, policy: policy)
        switch (windowed, whole) {
        case (.success(let a), .success(let b)):
            #expect(a.sniffed == b.sniffed)
            #expect(a.assessment.verdict == b.assessment.verdict)
            #expect(a.warnings == b.warnings)
        case (.failure(let a), .failure(let b)):
            #expect(a.code == b.code)
            #expect(a.reason == b.reason)
        default:
            Issue.record("\(file.lastPathComponent): windowed \(windowed), whole \(whole)")
        }
    }

    /// A movie over the video cap is refused for its size although only its header was read.
    @Test func sizeComesFromTheWholeFile() throws {
        let ftyp: [UInt8] = [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isommp41".utf8)
        let mdat: [UInt8] = [0, 0, 0, 8] + Array("mdat".utf8)
        var data = Data(ftyp + mdat)
        data.append(Data(count: AppleRules.standard.byteCap(for: .movie) + 1 - data.count))
        guard case .success(let id) = MediaCheck.identify(data, fileExtension: "mp4", policy: AttachmentPolicy()) else {
            Issue.record("an MP4 header was refused")
            return
        }
        #expect(id.sniffed.format == .mp4)
        guard case .rejected(let code, _) = id.assessment.verdict else {
            Issue.record("over the cap but \(id.assessment.verdict)")
            return
        }
        #expect(code == .invalidFileSize)
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
        guard case .success(let id) = MediaCheck.identify(data, fileExtension: "mp3", policy: AttachmentPolicy()) else {
            Issue.record("an MP3 behind a large tag was refused")
            return
        }
        #expect(id.sniffed.format == .mp3)
        #expect(id.sniffed.detail == "ID3v2")
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
            let windowed = MediaCheck.identify(data, fileExtension: "jpg", policy: policy)
            let read = MediaCheck.identify([UInt8](data), fileExtension: "jpg", policy: policy)
            switch (windowed, read) {
            case (.success(let a), .success(let b)):
                #expect(a.sniffed == b.sniffed, "\(file.lastPathComponent) cut at \(cut)")
                #expect(a.assessment == b.assessment, "\(file.lastPathComponent) cut at \(cut)")
                #expect(a.warnings == b.warnings, "\(file.lastPathComponent) cut at \(cut)")
            case (.failure(let a), .failure(let b)):
                #expect(a == b, "\(file.lastPathComponent) cut at \(cut)")
            default:
                Issue.record("\(file.lastPathComponent) cut at \(cut): windowed \(windowed), whole \(read)")
            }
        }
    }

    /// The window of a photo is its header, not the file: what `prepare` no longer copies.
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
