import Testing

@testable import MediaTypes

@Suite("Apple's rules")
struct AppleRulesTests {
    let rules = AppleRules.standard
    let png = SniffedType(format: .png, width: 100, height: 100, frames: 1, hasAlpha: false)

    @Test("the table: accepted formats, caps in 10^6-byte MB, error codes")
    func table() {
        #expect(AppleRules.acceptedFormats == [.jpeg, .gif, .png, .aiff, .wav, .mp3, .m4a, .mpeg, .mp4, .avi])
        #expect(rules.byteCap(for: .image) == 10_000_000)
        #expect(rules.byteCap(for: .audio) == 5_000_000)
        #expect(rules.byteCap(for: .movie) == 50_000_000)
        #expect(UNErrorCode.allCases.map(\.rawValue) == [100, 101, 102, 103, 104, 105])
        #expect(rules.isAccepted(.png) && !rules.isAccepted(.webp) && !rules.isAccepted(.heic))
    }

    @Test("PNG just under 10,000,000 bytes is accepted; just over is rejected 102")
    func sizeCap() {
        #expect(rules.assess(png, byteCount: 10_000_000, fileExtension: "png").verdict == .accepted)
        #expect(rules.assess(png, byteCount: 9_999_999, fileExtension: "png").verdict == .accepted)
        let over = rules.assess(png, byteCount: 10_000_001, fileExtension: "png")
        #expect(over.verdict.errorCode == .invalidFileSize)
        #expect(over.verdict.name == "rejected")
        #expect(over.reason?.contains("10 MB") == true)
    }

    @Test("audio and movie caps")
    func otherCaps() {
        #expect(
            rules.assess(SniffedType(format: .mp3), byteCount: 5_000_001, fileExtension: "mp3").verdict.errorCode
                == .invalidFileSize)
        #expect(
            rules.assess(SniffedType(format: .mp4), byteCount: 49_000_000, fileExtension: "mp4").verdict == .accepted)
        #expect(
            rules.assess(SniffedType(format: .mp4), byteCount: 50_000_001, fileExtension: nil).verdict.errorCode
                == .invalidFileSize)
    }

    @Test("WebP transcodes to JPEG, or PNG with alpha")
    func webp() {
        let opaque = rules.assess(
            SniffedType(format: .webp, width: 10, height: 10, hasAlpha: false), byteCount: 100, fileExtension: "webp")
        #expect(opaque.verdict == .transcode(to: .jpeg))
        #expect(opaque.verdict.name == "transcode")
        #expect(opaque.reason == "WebP is not accepted by iOS; prepare will transcode it to JPEG")
        let alpha = rules.assess(
            SniffedType(format: .webp, width: 10, height: 10, hasAlpha: true), byteCount: 100, fileExtension: nil)
        #expect(alpha.verdict == .transcode(to: .png))
        #expect(rules.transcodeTarget(for: .bmp, hasAlpha: false) == nil)
    }

    @Test("HEIC, HEIF and AVIF transcode to JPEG, or PNG with alpha", arguments: [MediaFormat.heic, .heif, .avif])
    func heif(_ format: MediaFormat) {
        let opaque = rules.assess(
            SniffedType(format: format, width: 10, height: 10, hasAlpha: false), byteCount: 100,
            fileExtension: format.fileExtension)
        #expect(opaque.verdict == .transcode(to: .jpeg))
        #expect(opaque.reason == "\(format.displayName) is not accepted by iOS; prepare will transcode it to JPEG")
        let alpha = rules.assess(
            SniffedType(format: format, width: 10, height: 10, hasAlpha: true), byteCount: 100, fileExtension: nil)
        #expect(alpha.verdict == .transcode(to: .png))
    }

    @Test("animated WebP warns that animation is lost")
    func animatedWebP() {
        let a = rules.assess(
            SniffedType(format: .webp, width: 10, height: 10, frames: 5, hasAlpha: true, isAnimated: true),
            byteCount: 100, fileExtension: nil)
        #expect(a.verdict == .transcode(to: .png))
        #expect(a.warnings.contains { $0.contains("first frame") })
    }

    @Test(
        "formats iOS refuses and we cannot convert are rejected 101",
        arguments: [MediaFormat.bmp, .tiff, .ico, .svg, .pdf, .mov, .m4v, .mpegts])
    func notConvertible(_ format: MediaFormat) throws {
        let a = rules.assess(SniffedType(format: format), byteCount: 1000, fileExtension: format.fileExtension)
        #expect(a.verdict.errorCode == .unrecognizedType)
        let reason = try #require(a.reason)
        #expect(reason.contains("not accepted by iOS"))
        #expect(reason.contains("cannot be converted here"))
    }

    @Test("unknown bytes are rejected 101")
    func unknown() {
        let a = rules.assess(SniffedType(format: .unknown), byteCount: 10, fileExtension: "jpg")
        #expect(a.verdict.errorCode == .unrecognizedType)
    }

    @Test("a JPEG named .png is rejected 101 with a rename")
    func wrongExtension() throws {
        let jpeg = SniffedType(format: .jpeg, width: 10, height: 10, frames: 1)
        let a = rules.assess(jpeg, byteCount: 1000, fileExtension: "png")
        #expect(a.verdict.errorCode == .unrecognizedType)
        #expect(try #require(a.reason).contains("rename it to .jpg"))
        let none = rules.assess(jpeg, byteCount: 1000, fileExtension: "")
        #expect(try #require(none.reason).contains("rename it to .jpg"))
        #expect(rules.assess(jpeg, byteCount: 1000, fileExtension: ".JPEG").verdict == .accepted)
        #expect(rules.assess(jpeg, byteCount: 1000, fileExtension: nil).verdict == .accepted)
    }

    @Test("5760x3840 is over the 24 MB memory budget: a warning, still accepted")
    func memoryBudget() {
        let big = SniffedType(format: .jpeg, width: 5760, height: 3840, frames: 1)
        let a = rules.assess(big, byteCount: 2_270_597, fileExtension: "jpg")
        #expect(a.verdict == .accepted)
        #expect(a.warnings.count == 1)
        #expect(a.warnings[0].contains("decoded size 5760x3840"))
        #expect(a.warnings[0].contains("over the NSE decoded-memory budget"))
        #expect(
            rules.assess(SniffedType(format: .jpeg, width: 2000, height: 3000), byteCount: 1, fileExtension: nil)
                .warnings.isEmpty)
    }

    @Test("end to end on real files: sniff, then assess")
    func realFiles() throws {
        let photo = try corpusBytes("photos/kodak_pixpro_fz201.jpg")
        let a = rules.assess(try Sniffer.sniff(photo), byteCount: photo.count, fileExtension: "jpg")
        #expect(a.verdict == .accepted)
        #expect(a.warnings.first?.contains("4608x3456") == true)
        let webp = try corpusBytes("webp/metadata-extractor-images/alpha_lossy_1.webp")
        #expect(
            rules.assess(try Sniffer.sniff(webp), byteCount: webp.count, fileExtension: "webp").verdict
                == .transcode(to: .png))
        let heic = try corpusBytes("small/extra/ianare_iphone_IMG_5195.heic")
        let h = rules.assess(try Sniffer.sniff(heic), byteCount: heic.count, fileExtension: "heic")
        #expect(h.verdict == .transcode(to: .jpeg))
        #expect(h.reason == "HEIC is not accepted by iOS; prepare will transcode it to JPEG")
        let apng = try corpusBytes("pngsuite/extra/apng_basic_f20.png")
        #expect(rules.assess(try Sniffer.sniff(apng), byteCount: apng.count, fileExtension: "png").verdict == .accepted)
    }

    @Test("a header failure is rejected 105 corrupt")
    func corrupt() {
        let a = rules.assess(failure: .truncated(format: .png, detail: "x"))
        #expect(a.verdict.errorCode == .corrupt)
        #expect(a.reason?.contains("PNG") == true)
    }
}
