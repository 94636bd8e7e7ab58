import Testing

@testable import MediaTypes

/// `Planner.plan`, the one function that decides: one test per action and per refusal, what iOS
/// does with the file as it is, the deviations a plan allows, and how its reasons read.
@Suite("the planner")
struct PlannerTests {
    let policy = AttachmentPolicy()

    func plan(_ facts: MediaFacts) -> Plan { Planner.plan(facts, policy: policy) }

    /// A still with its engine facts (upright unless `orientation` says otherwise).
    func still(
        _ format: MediaFormat, _ w: Int, _ h: Int, bytes: Int = 100_000, alpha: Bool = false,
        orientation: Orientation = .up, cmyk: Bool = false, name: String? = nil
    ) -> MediaFacts {
        var facts = MediaFacts(
            sniffed: SniffedType(format: format, width: w, height: h, frames: 1, hasAlpha: alpha), byteCount: bytes,
            fileExtension: name ?? format.fileExtension)
        facts.image = ImageFacts(stored: Size(width: w, height: h), orientation: orientation, isCMYK: cmyk)
        return facts
    }

    /// An animation with its container's facts.
    func animation(_ format: MediaFormat, frames: Int = 10, ms: Int = 1000, bytes: Int = 100_000, side: Int = 200)
        -> MediaFacts
    {
        var facts = MediaFacts(
            sniffed: SniffedType(format: format, width: side, height: side, frames: frames, hasAlpha: false, isAnimated: true),
            byteCount: bytes, fileExtension: format.fileExtension)
        let canvas = Size(width: side, height: side)
        facts.image = ImageFacts(
            stored: canvas, animation: AnimationFacts(canvas: canvas, frames: frames, loopCount: 0, durationMilliseconds: ms))
        return facts
    }

    // MARK: - Actions

    @Test func aJPEGWithinEveryLimitPassesThrough() {
        let p = plan(still(.jpeg, 1600, 1200))
        #expect(p.action == .passThrough && p.output == .jpeg && p.target == nil && p.refusal == nil)
        #expect(p.asIs == .accepted && p.changes.isEmpty && p.mayDeviate.isEmpty)
    }

    @Test func aMisnamedOrNamelessFileIsRenamed() {
        let misnamed = plan(still(.jpeg, 100, 100, name: "png"))
        #expect(misnamed.action == .rename && misnamed.output == .jpeg)
        #expect(misnamed.changes == [.misnamed(fileExtension: "png")])
        #expect(misnamed.asIs == .rejected(.unrecognizedType))
        #expect(misnamed.reason(naming: .library)?.contains("prepare writes it as .jpg") == true)
        #expect(plan(still(.jpeg, 100, 100, name: "")).action == .rename)
        // Bytes without a name (a download before it is written) are not renamed.
        var nameless = still(.jpeg, 100, 100)
        nameless.fileExtension = nil
        #expect(plan(nameless).action == .passThrough)
        #expect(plan(still(.jpeg, 100, 100, name: ".JPEG")).action == .passThrough)
    }

    @Test func aFormatIOSRefusesIsConverted() {
        let opaque = plan(still(.webp, 320, 240))
        #expect(opaque.action == .convert && opaque.output == .jpeg && opaque.target == Size(width: 320, height: 240))
        #expect(opaque.asIs == .rejected(.unrecognizedType))
        #expect(opaque.mayDeviate.isEmpty)
        let alpha = plan(still(.heic, 320, 240, alpha: true))
        #expect(alpha.action == .convert && alpha.output == .png)
        #expect(alpha.mayDeviate == [.opaqueAlphaAsJPEG, .pngOverCapAsJPEG])
        #expect(opaque.reason(naming: .library) == "iOS does not accept WebP; prepare converts it to JPEG")
    }

    @Test func anImageOverALimitIsFitted() {
        let large = plan(still(.jpeg, 4000, 3000))
        #expect(large.action == .fit && large.output == .jpeg && large.target == Size(width: 2048, height: 1536))
        #expect(large.changes == [.overLongSide(Size(width: 4000, height: 3000), limit: 2048)])
        #expect(large.asIs == .accepted, "iOS itself takes a large JPEG within its byte cap")
        #expect(large.reason(naming: .library) == "prepare re-encodes it as JPEG: 4000x3000 is over the 2048-pixel long side")
        let heavy = plan(still(.png, 1000, 1000, bytes: 19_819_914))
        #expect(heavy.action == .fit && heavy.output == .png && heavy.mayDeviate == [.pngOverCapAsJPEG])
        #expect(heavy.asIs == .rejected(.invalidFileSize))
        #expect(heavy.reason(naming: .library)?.contains("19.8 MB, over the 10 MB cap for images") == true)
        #expect(plan(still(.jpeg, 1000, 800, orientation: .right)).changes == [.turned(.right)])
        #expect(plan(still(.jpeg, 1000, 800, cmyk: true)).changes == [.cmyk])
        // Within a 4096 long side but over the 24 MB decoded budget.
        var roomy = policy
        roomy.maxLongSide = 4096
        let wide = Planner.plan(still(.jpeg, 3000, 3000), policy: roomy)
        #expect(wide.changes == [.overDecodedBudget(Size(width: 3000, height: 3000), budget: 24_000_000)])
        #expect(wide.target.map { $0.width * $0.height * 4 <= 24_000_000 } == true)
    }

    @Test func anAnimatedWebPOrAGIFOverALimitIsReencoded() {
        let webp = plan(animation(.webp))
        #expect(webp.action == .reencodeAnimation && webp.output == .gif && webp.mayDeviate == [.animationAsFirstFrame])
        let gif = plan(animation(.gif, bytes: 12_000_000))
        #expect(gif.action == .reencodeAnimation && gif.changes == [.overByteCap(bytes: 12_000_000, cap: 10_000_000)])
        #expect(plan(animation(.gif)).action == .passThrough)
    }

    @Test func anAnimationOverTheFrameOrDurationCapKeepsItsFirstFrame() {
        let frames = plan(animation(.gif, frames: 301))
        #expect(frames.action == .firstFrame && frames.output == .jpeg)
        #expect(frames.changes == [.overFrameCap(frames: 301, cap: 300)])
        #expect(frames.notes == [.firstFrameOnly(.gif, frames: 301)])
        #expect(plan(animation(.webp, ms: 60_001)).action == .firstFrame)
        #expect(plan(animation(.gif, frames: 300, ms: 60_000)).action == .passThrough)
    }

    @Test func audioAndMoviesIOSTakesPassThrough() {
        let mp3 = plan(MediaFacts(sniffed: SniffedType(format: .mp3), byteCount: 1000, fileExtension: "mp3"))
        #expect(mp3.action == .passThrough && mp3.output == .mp3)
        let mp4 = plan(MediaFacts(sniffed: SniffedType(format: .mp4), byteCount: 49_000_000, fileExtension: "mp4"))
        #expect(mp4.action == .passThrough)
    }

    // MARK: - Refusals, each with its code

    @Test(arguments: [
        ("<!DOCTYPE html><html><body>404</body></html>", ContentGuess.html),
        ("hello, world\nsecond line\n", .text), ("{\"error\":\"not found\"}", .json), ("<?xml version=\"1.0\"?><a/>", .xml),
        ("", .empty),
    ])
    func bytesThatAreNoMediaAreNotMediaWhateverTheirName(_ text: String, _ guess: ContentGuess) {
        for name in ["jpg", "png", "txt", ""] as [String?] + [nil] {
            let p = plan(MediaFacts(bytes: Array(text.utf8), fileExtension: name))
            #expect(p.refusal == .notMedia(guess), "\(name ?? "nil")")
            #expect(p.code == .unrecognizedType && p.refusal?.kind == .notMedia)
        }
        let reason = plan(MediaFacts(bytes: Array(text.utf8), fileExtension: "jpg")).reason(naming: .library) ?? ""
        #expect(reason.hasPrefix("not media: the bytes are \(guess.phrase)"))
        // Nothing of the bytes is quoted.
        if text.count > 8 { #expect(!reason.contains(String(text.prefix(8)))) }
    }

    @Test func aJPEGWithStrayBytesAfterItsStartMarkerIsADamagedJPEG() {
        let stray: [UInt8] = [0xFF, 0xD8, 0x00, 0xF5, 0xEB, 0xEB, 0xFF, 0xDB, 0x00, 0x43] + Array(repeating: 0x08, count: 40)
        #expect(DamagedSignature.format(of: stray) == .jpeg)
        #expect(plan(MediaFacts(bytes: stray, fileExtension: nil)).refusal?.kind != .notMedia)
        // The two start bytes alone, without a segment marker after them, are not a JPEG.
        #expect(DamagedSignature.format(of: [0xFF, 0xD8] + Array(repeating: 0x41, count: 30)) == nil)
    }

    @Test func aPDFIsNotMediaAndBinaryNoiseToo() {
        #expect(plan(MediaFacts(bytes: Array("%PDF-1.7\n".utf8), fileExtension: "jpg")).refusal == .notMedia(.pdf))
        #expect(plan(MediaFacts(bytes: [0x00, 0x01, 0xFE, 0x7F, 0x80], fileExtension: "bin")).refusal == .notMedia(.binary))
    }

    @Test(arguments: [MediaFormat.bmp, .tiff, .ico, .svg, .jp2, .flac, .ogg, .mov, .m4v, .mpegts, .webm, .mkv])
    func aFormatIOSRefusesThatIsNotConvertedIsNotAccepted(_ format: MediaFormat) {
        let p = plan(MediaFacts(sniffed: SniffedType(format: format), byteCount: 1000, fileExtension: format.fileExtension))
        #expect(p.refusal == .notAccepted(format, tracks: []))
        #expect(p.code == .unrecognizedType && p.asIs == .rejected(.unrecognizedType))
        #expect(p.reason(naming: .library)?.contains("cannot be converted here") == true)
    }

    @Test func overTheCapOfItsKind() {
        let wav = plan(MediaFacts(sniffed: SniffedType(format: .wav), byteCount: 7_000_000, fileExtension: "wav"))
        #expect(wav.refusal == .overCap(.ios(.audio, cap: 5_000_000), bytes: 7_000_000, atLeast: false))
        #expect(wav.code == .invalidFileSize && wav.asIs == .rejected(.invalidFileSize))
        #expect(wav.reason(naming: .library) == "7 MB, over the 5 MB cap for audio iOS sets; make the file smaller")
        let mp4 = plan(MediaFacts(sniffed: SniffedType(format: .mp4), byteCount: 55_000_000, fileExtension: "mp4"))
        #expect(mp4.refusal == .overCap(.ios(.movie, cap: 50_000_000), bytes: 55_000_000, atLeast: false))
        let jpeg = plan(still(.jpeg, 4000, 3000, bytes: 40_100_000))
        #expect(jpeg.refusal == .overCap(.imageInput(cap: 32_000_000), bytes: 40_100_000, atLeast: false))
        #expect(jpeg.reason(naming: SettingNames([.imageInputCap: "--image-input-cap"]))?.hasSuffix("raise --image-input-cap") == true)
    }

    @Test func aBodyStoppedAtItsCapIsJudgedByItsFirstBytes() {
        let mp4Start: [UInt8] = [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isommp41".utf8)
        #expect(
            Planner.refusal(forBodyOver: 50_000_000, firstBytes: mp4Start, bytes: 50_000_000, exact: false, policy: policy)
                == .overCap(.ios(.movie, cap: 50_000_000), bytes: 50_000_000, atLeast: true))
        let html = Array("<html><body>".utf8)
        #expect(
            Planner.refusal(forBodyOver: 10_000_000, firstBytes: html, bytes: 10_000_000, exact: false, policy: policy)
                == .notMedia(.html))
    }

    @Test func aHeaderOverThePixelBudgetIsTooLarge() {
        let bomb = plan(still(.png, 20_000, 14_000))
        #expect(bomb.refusal == .overPixelBudget(.png, width: 20_000, height: 14_000, budget: 50_000_000))
        #expect(bomb.code == .invalidFileSize)
        #expect(bomb.asIs == .rejected(.invalidFileSize))
        #expect(bomb.reason(naming: SettingNames([.pixelBudget: "--pixel-budget"]))?.contains("--pixel-budget") == true)
    }

    @Test func aClaimThatDisagreesIsRefusedOnlyWhenStrict() throws {
        var facts = still(.png, 10, 10)
        facts.claims = [TypeClaim(.mediaType, "video")]
        let lenient = plan(facts)
        #expect(lenient.action == .passThrough)
        guard case .claimDisagrees? = lenient.notes.first else { Issue.record("\(lenient.notes)"); return }
        var strict = policy
        strict.strict = true
        let refused = Planner.plan(facts, policy: strict)
        guard case .claimMismatch(let mismatch)? = refused.refusal else { Issue.record("\(refused)"); return }
        #expect(mismatch.sniffed == .png && refused.code == .unrecognizedType)
    }

    @Test func damageIsCorrupt() {
        let header = plan(MediaFacts(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], fileExtension: "png"))
        guard case .damaged(.png, .header)? = header.refusal else { Issue.record("\(header)"); return }
        #expect(header.code == .corrupt && header.asIs == .rejected(.corrupt))
        for problem in [DecodeProblem.corrupt(detail: "bad Huffman code"), .damagedData(detail: "premature end"), .malformedExif(detail: "IFD0 past the end")] {
            var facts = still(.jpeg, 100, 100)
            facts.imageProblem = problem
            let p = plan(facts)
            #expect(p.code == .corrupt && p.refusal?.kind == .damaged, "\(problem)")
            #expect(p.asIs == .rejected(.corrupt))
        }
        let data = Planner.refusal(for: .damagedData(detail: "premature end"), format: .jpeg, policy: policy)
        #expect(data.description(naming: SettingNames([.acceptDamaged: "--accept-damaged"])).hasSuffix("with --accept-damaged"))
    }

    @Test func aVariantTheDecoderDoesNotReadIsUnsupported() {
        var facts = still(.jpeg, 100, 100)
        facts.imageProblem = .unsupported(codec: "libjpeg-turbo", detail: "12-bit")
        #expect(plan(facts).refusal == .unsupportedVariant(.jpeg, codec: "libjpeg-turbo", detail: "12-bit"))
        #expect(plan(facts).code == .unrecognizedType)
    }

    @Test func noSizeThatFitsIsOurOwnRefusal() {
        let fitted = plan(still(.png, 3000, 3000))
        let refused = Planner.refused(Planner.refusal(for: .cannotFit(cap: 10_000_000, smallest: 10_400_000), format: .png, policy: policy), as: fitted)
        #expect(refused.action == .refuse && refused.code == nil && refused.refusal?.kind == .noSizeFits)
        #expect(refused.asIs == fitted.asIs)
    }

    @Test func aThumbnailOfSoundIsRefusedForHavingNoPicture() {
        let wav = MediaFacts(sniffed: SniffedType(format: .wav), byteCount: 1000, fileExtension: "wav")
        let p = Planner.thumbnailPlan(wav, policy: policy)
        #expect(p.refusal == .noPicture(.wav) && p.code == nil)
        #expect(Planner.thumbnailPlan(still(.jpeg, 4000, 3000), policy: policy).action == .fit)
    }

    // MARK: - The table and the words

    @Test func everyRefusalHasOneCodeAndOneKind() {
        let codes: [Refusal.Kind: UNErrorCode?] = [
            .notMedia: .unrecognizedType, .notAccepted: .unrecognizedType, .overCap: .invalidFileSize,
            .overPixelBudget: .invalidFileSize, .claimMismatch: .unrecognizedType, .damaged: .corrupt,
            .unsupportedVariant: .unrecognizedType, .noSizeFits: nil, .noPicture: nil,
        ]
        #expect(Set(codes.keys) == Set(Refusal.Kind.allCases))
        let samples: [Refusal] = [
            .notMedia(.html), .notAccepted(.bmp, tracks: []), .overCap(.imageInput(cap: 1), bytes: 2, atLeast: false),
            .overPixelBudget(.png, width: 1, height: 1, budget: 0),
            .claimMismatch(TypeMismatch(claim: TypeClaim(.mediaType, "video"), sniffed: .png, claimed: "movie")),
            .damaged(.jpeg, .data(detail: "x")), .unsupportedVariant(.jpeg, codec: "c", detail: "d"),
            .noSizeFits(cap: 1, smallest: 2), .noPicture(.wav),
        ]
        for refusal in samples { #expect(refusal.code == codes[refusal.kind]!, "\(refusal)") }
    }

    @Test func sizesReadTheSameEverywhere() {
        #expect(ByteSize.text(19_819_914) == "19.8 MB")
        #expect(ByteSize.text(10_000_000) == "10 MB")
        #expect(ByteSize.text(512_000) == "512 kB")
        #expect(ByteSize.text(42) == "42 bytes")
        #expect(ByteSize.over(19_819_914, cap: 10_000_000, for: "images") == "19.8 MB, over the 10 MB cap for images")
    }

    @Test func realFiles() throws {
        let photo = try corpusBytes("photos/kodak_pixpro_fz201.jpg")
        #expect(Planner.plan(MediaFacts(bytes: photo, fileExtension: "jpg"), policy: policy).action == .fit)
        let apng = try corpusBytes("pngsuite/extra/apng_basic_f20.png")
        #expect(Planner.plan(MediaFacts(bytes: apng, fileExtension: "png"), policy: policy).action == .passThrough)
        let heic = try corpusBytes("small/extra/ianare_iphone_IMG_5195.heic")
        let h = Planner.plan(MediaFacts(bytes: heic, fileExtension: "heic"), policy: policy)
        #expect(h.action == .convert && h.output == .jpeg)
    }
}

/// Apple's rules as data.
@Suite("Apple's rules")
struct AppleRulesTests {
    @Test("the table: accepted formats, caps in 10^6-byte MB, error codes")
    func table() {
        let rules = AppleRules.standard
        #expect(AppleRules.acceptedFormats == [.jpeg, .gif, .png, .aiff, .wav, .mp3, .m4a, .mpeg, .mp4, .avi])
        #expect(rules.byteCap(for: .image) == 10_000_000)
        #expect(rules.byteCap(for: .audio) == 5_000_000)
        #expect(rules.byteCap(for: .movie) == 50_000_000)
        #expect(UNErrorCode.allCases.map(\.rawValue) == [100, 101, 102, 103, 104, 105])
        #expect(rules.isAccepted(.png) && !rules.isAccepted(.webp) && !rules.isAccepted(.heic))
    }
}

