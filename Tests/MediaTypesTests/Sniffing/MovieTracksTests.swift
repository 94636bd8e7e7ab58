import MediaTypes
import TestSupport
import Testing

/// `MovieTracks`: each track's codec from the `moov` box, and what the rules say of it: a
/// QuickTime movie's refusal names its codecs and whether a remux is enough; an MP4 iOS takes by
/// type but whose video it does not reliably play gets a warning saying what to re-encode to.
@Suite("Movie tracks: codecs from moov")
struct MovieTracksTests {
    @Test func tracksAreReadInFileOrderWithTheirKind() throws {
        let bytes = MovieFile.bytes(brand: "isom", tracks: [("vide", "vp09"), ("soun", "Opus"), ("text", "tx3g")])
        let sniffed = try Sniffer.sniff(bytes)
        #expect(sniffed.format == .mp4)
        #expect(
            sniffed.tracks == [
                MovieTrack(kind: .video, code: "vp09"), MovieTrack(kind: .audio, code: "Opus"),
                MovieTrack(kind: .other, code: "tx3g"),
            ])
        #expect(sniffed.tracks.map(\.codecName) == ["VP9", "Opus", "tx3g"])
        #expect(MovieTrack.describe(sniffed.tracks) == "VP9 video, Opus audio")
    }

    @Test func aMoovAfterTheMediaDataIsFoundWhenTheBytesReachIt() throws {
        let bytes = MovieFile.bytes(brand: "isom", tracks: [("vide", "avc1")], moovFirst: false, mdatBytes: 5000)
        #expect(MovieTracks.read(bytes) == [MovieTrack(kind: .video, code: "avc1")])
        // Cut before the moov (a window of the file's start): no tracks, so no verdict on codecs.
        #expect(MovieTracks.read(Array(bytes.prefix(3000))).isEmpty)
    }

    @Test func cutAndLyingBoxesStopTheWalkWithoutATrap() {
        let bytes = MovieFile.bytes(brand: "isom", tracks: [("vide", "avc1")])
        for cut in stride(from: 0, to: bytes.count, by: 7) {
            _ = MovieTracks.read(Array(bytes.prefix(cut)))
        }
        var lying = bytes
        lying[lying.count - 80] = 0xFF  // a size inside moov now claims far past the end
        _ = MovieTracks.read(lying)
        // A 64-bit size larger than the file.
        let huge = MovieFile.box("ftyp", Array("isom".utf8) + [0, 0, 0, 0]) + [0, 0, 0, 1] + Array("moov".utf8)
            + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(MovieTracks.read(huge).isEmpty)
    }

    @Test func aQuickTimeMovieSaysWhetherARemuxIsEnough() throws {
        let h264 = try Sniffer.sniff(MovieFile.bytes(brand: "qt  ", tracks: [("vide", "avc1"), ("soun", "mp4a")]))
        #expect(h264.format == .mov)
        let remux = Planner.plan(MediaFacts(sniffed: h264, byteCount: 1000, fileExtension: "mov"), policy: .init())
        #expect(remux.code == .unrecognizedType)
        let reason = try #require(remux.reason(naming: .library))
        #expect(reason.contains("QuickTime movie (H.264 video, AAC audio)") && reason.contains("remux it"), "\(reason)")

        let prores = try Sniffer.sniff(MovieFile.bytes(brand: "qt  ", tracks: [("vide", "apcn"), ("soun", "lpcm")]))
        let convert = Planner.plan(MediaFacts(sniffed: prores, byteCount: 1000, fileExtension: "mov"), policy: .init())
        let why = try #require(convert.reason(naming: .library))
        #expect(why.contains("(ProRes 422 video, PCM audio)") && why.contains("convert it to MP4 (H.264 video, AAC audio)"), "\(why)")
    }

    @Test func anMP4WithVideoIOSDoesNotPlayIsAcceptedWithAWarning() throws {
        let vp9 = try Sniffer.sniff(MovieFile.bytes(brand: "isom", tracks: [("vide", "vp09"), ("soun", "mp4a")]))
        let plan = Planner.plan(MediaFacts(sniffed: vp9, byteCount: 1000, fileExtension: "mp4"), policy: .init())
        #expect(plan.action == .passThrough)
        #expect(
            plan.notes.map(\.description) == [
                "the video track is VP9 (vp09), which iOS does not reliably play in a notification; re-encode it to H.264 (or HEVC)"
            ])
        let h264 = try Sniffer.sniff(MovieFile.bytes(brand: "isom", tracks: [("vide", "avc1"), ("soun", "mp4a")]))
        #expect(Planner.plan(MediaFacts(sniffed: h264, byteCount: 1000, fileExtension: "mp4"), policy: .init()).notes.isEmpty)
    }
}
