import Foundation
import TestSupport
import Testing

@testable import ImageCodecs

/// CMYK and YCCK JPEGs with a CMYK ICC profile go to sRGB through lcms2; without one, or with
/// one lcms2 cannot use (a warning says why), through the default CMYK profile.
@Suite struct CMYKColorTests {
    static let profiled = "photos/cmyk_canon_eos300d_wikimedia.jpg"
    /// The same photo with its profile stripped (sharp's fixture): identical scan data.
    static let unprofiled = "jpeg/misc/sharp_cmyk_no_profile.jpg"

    static func reference(_ name: String) throws -> PixelBuffer {
        let url = Corpus.testImages.appendingPathComponent("codecs/\(name)")
        return try PNGCodec.decode(try Data(contentsOf: url), options: DecodeOptions()).pixels
    }

    /// The embedded profile's bytes and where its first APP2 chunk's payload starts in `jpeg`.
    static func profileRange(in jpeg: [UInt8]) throws -> Range<Int> {
        let signature = JPEGICC.signature
        let start = try #require(
            (0..<(jpeg.count - signature.count)).first { jpeg[$0..<($0 + signature.count)].elementsEqual(signature) })
        let segmentLength = Int(jpeg[start - 2]) << 8 | Int(jpeg[start - 1])
        let payload = start + signature.count + 2
        return payload..<(start - 2 + segmentLength)
    }

    @Test func profiledYCCKIsConvertedThroughLCMS() throws {
        let data = try Corpus.data(Self.profiled)
        #expect(try JPEGCodec.readInfo(data).colorSpace == "ycck")
        let image = try JPEGCodec.decode(data, options: DecodeOptions(strict: true))
        #expect(
            image.notes == [
                "converted ycck to sRGB through the embedded ICC profile 'U.S. Web Coated (SWOP) v2' (lcms2, perceptual intent)"
            ])
        #expect(image.warnings.isEmpty && image.damage.isEmpty)
        // The pixels are sRGB: the CMYK profile does not describe them, so none is carried.
        #expect(image.iccProfile == nil)
        #expect(try JPEGCodec.readInfo(data).iccProfile?.count == 557_168)
    }

    /// Plain CMYK (Adobe transform 0, not YCCK) with a 952-byte profile of our own
    /// (TestImages/codecs/make-cmyk-small-profile.sh): through lcms2, as Pillow ImageCms.
    @Test func plainCMYKWithSmallProfile() throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent("codecs/cmyk_small_profile.jpg"))
        #expect(try JPEGCodec.readInfo(data).colorSpace == "cmyk")
        let image = try JPEGCodec.decode(data, options: DecodeOptions(strict: true))
        #expect(
            image.notes == [
                "converted cmyk to sRGB through the embedded ICC profile 'PushAttach test CMYK (naive, 3-point CLUT)' (lcms2, perceptual intent)"
            ])
        let error = try #require(
            Pixels.meanAbsoluteError(image.pixels, try Self.reference("cmyk_small_profile_srgb.png")))
        #expect(error < 2, "mean absolute error \(error)")
    }

    /// Pillow ImageCms (perceptual) is the reference: the lcms2 decode is within rounding of it,
    /// the default profile's decode of the same scan data (no profile) is close, the naive
    /// formula far off.
    @Test func managedIsCloserToTheReferenceThanNaive() throws {
        let reference = try Self.reference("cmyk_canon_eos300d_srgb.png")
        let managed = try JPEGCodec.decode(try Corpus.data(Self.profiled), options: DecodeOptions()).pixels
        let unprofiled = try Corpus.data(Self.unprofiled)
        let fallback = try JPEGCodec.decode(unprofiled, options: DecodeOptions())
        #expect(fallback.notes == [Self.defaultNote("ycck")])
        #expect(fallback.warnings.isEmpty)
        let naive = try Self.naiveDecode(unprofiled)
        let managedError = try #require(Pixels.meanAbsoluteError(managed, reference))
        let fallbackError = try #require(Pixels.meanAbsoluteError(fallback.pixels, reference))
        let naiveError = try #require(Pixels.meanAbsoluteError(naive, reference))
        print(
            "CMYK decode, mean absolute error against Pillow ImageCms (SWOP): lcms2 \(managedError), default profile \(fallbackError), naive \(naiveError)"
        )
        #expect(managedError < 1, "lcms2 decode: mean absolute error \(managedError)")
        #expect(naiveError > 8, "naive decode: mean absolute error \(naiveError)")
    }

    /// The note for a file without a usable profile.
    static func defaultNote(_ space: String, why: String = "no ICC profile in the file") -> String {
        "converted \(space) to sRGB through the default CMYK profile 'Chemical proof', \(why) (lcms2, relative colorimetric intent, black point compensation)"
    }

    /// The naive formula (`CMYKConversion`) on the file's CMYK, for comparison.
    static func naiveDecode(_ data: Data) throws -> PixelBuffer {
        let jpeg = [UInt8](data)
        #expect(TurboJPEGReference.hasAdobeSegment(jpeg))
        let raw = try #require(TurboJPEGReference.rawCMYK(jpeg))
        return CMYKConversion.toRGB(raw.cmyk, width: raw.width, height: raw.height, inverted: true)
    }

    /// A CMYK JPEG without a profile (160x120, TestImages/codecs/make-default-cmyk-references.py)
    /// goes through the default CMYK profile: within 1 level of Pillow ImageCms with the same
    /// profile and intent (observed 0.0), far from the naive formula (observed 13.8).
    @Test func unprofiledCMYKGoesThroughTheDefaultProfile() throws {
        let data = try Data(contentsOf: Corpus.testImages.appendingPathComponent("codecs/cmyk_no_profile_160.jpg"))
        #expect(try JPEGCodec.readInfo(data).iccProfile == nil)
        let image = try JPEGCodec.decode(data, options: DecodeOptions(strict: true))
        #expect(image.notes == [Self.defaultNote("cmyk")])
        #expect(!image.notes.contains { $0.contains("without colour management") })
        #expect(image.warnings.isEmpty && image.damage.isEmpty && image.iccProfile == nil)
        let reference = try Self.reference("cmyk_no_profile_160_default_srgb.png")
        let error = try #require(Pixels.meanAbsoluteError(image.pixels, reference))
        let naiveError = try #require(Pixels.meanAbsoluteError(try Self.naiveDecode(data), reference))
        print("CMYK without a profile, against Pillow ImageCms 'Chemical proof': ours \(error), naive \(naiveError)")
        #expect(error < 1, "mean absolute error \(error)")
        #expect(naiveError > 5, "naive: mean absolute error \(naiveError)")
    }

    /// The default profile is the committed file, byte for byte, and lcms2 reads it.
    @Test func defaultProfileIsTheCommittedFile() throws {
        let url = Corpus.packageRoot.appendingPathComponent("Sources/CDefaultCMYKProfile/ChemicalProof.icc")
        #expect(DefaultCMYKProfile.bytes == [UInt8](try Data(contentsOf: url)))
        let transform = try CMYKColorTransform.make(
            profile: DefaultCMYKProfile.bytes, inverted: false, rendering: DefaultCMYKProfile.rendering
        ).get()
        #expect(transform.profileDescription == DefaultCMYKProfile.name)
        // No ink is paper white, full ink near black: BPC maps the proof's black (L* 13.5) onto
        // sRGB black, where relative colorimetric alone leaves (33, 33, 44).
        var ends = [UInt8](repeating: 0, count: 6)
        transform.convert([0, 0, 0, 0, 255, 255, 255, 255], stride: 8, into: &ends, stride: 6, width: 2, rows: 1)
        #expect(ends == [255, 255, 255, 0, 0, 20], "\(ends)")
    }

    /// A profile that is not CMYK (here the photo's, relabelled RGB) is set aside with a
    /// warning, and the default profile converts: the pixels match the default profile's
    /// reference of the same scan data.
    @Test func mismatchedProfileFallsBackToTheDefaultProfile() throws {
        var bytes = [UInt8](try Corpus.data(Self.profiled))
        let profile = try Self.profileRange(in: bytes)
        bytes.replaceSubrange((profile.lowerBound + 16)..<(profile.lowerBound + 20), with: Array("RGB ".utf8))
        let image = try JPEGCodec.decode(bytes: bytes, options: DecodeOptions(strict: true))
        #expect(
            image.warnings == [
                "CMYK ICC profile (557168 bytes) not used: the ICC profile describes 'RGB', not CMYK; colours converted through the default CMYK profile 'Chemical proof'"
            ])
        #expect(image.damage.isEmpty)
        #expect(image.notes == [Self.defaultNote("ycck", why: "the file's ICC profile is unusable")])
        #expect(image.iccProfile == nil)
        let reference = try Self.reference("sharp_cmyk_no_profile_default_srgb_center128.png")
        var crop = PixelBuffer(width: reference.width, height: reference.height, layout: .rgb)
        for y in 0..<reference.height {
            for x in 0..<reference.width { for c in 0..<3 { crop[x, y, c] = image.pixels[186 + x, 102 + y, c] } }
        }
        let error = try #require(Pixels.meanAbsoluteError(crop, reference))
        #expect(error < 1, "mean absolute error against the default profile's reference \(error)")
    }

    /// lcms2's own error text reaches the warning (through the context's log handler).
    @Test func lcmsErrorTextIsRecorded() throws {
        let bytes = [UInt8](try Corpus.data(Self.profiled))
        var profile = Array(bytes[try Self.profileRange(in: bytes)].prefix(132))
        profile[128..<132] = [0xFF, 0xFF, 0xFF, 0xFF]  // tag count
        guard case .failure(let failure) = CMYKColorTransform.make(profile: profile, inverted: true) else {
            Issue.record("a profile with 4 billion tags was accepted")
            return
        }
        #expect(failure.message.hasPrefix("lcms2 cannot read the ICC profile: "), "\(failure.message)")
        #expect(failure.message.count > "lcms2 cannot read the ICC profile: ".count)
    }

    /// Bit-flipped profiles: every decode succeeds, either through lcms2 or with the fallback
    /// warning, never both, never a crash.
    @Test func bitFlippedProfilesNeverCrash() throws {
        let original = [UInt8](try Corpus.data(Self.profiled))
        let profile = try Self.profileRange(in: original)
        var rng = SplitMix64(seed: TestSeed.value(default: 0x1CC_F11B, for: "bit-flipped CMYK profiles"))
        var managed = 0, fellBack = 0
        for round in 0..<40 {
            var bytes = original
            // The header and tag table most often, anywhere in the first chunk otherwise.
            let span = round % 2 == 0 ? 1024 : profile.count
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                let at = profile.lowerBound + Int.random(in: 0..<span, using: &rng)
                bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
            }
            let image = try JPEGCodec.decode(bytes: bytes, options: DecodeOptions())
            #expect(image.pixels.width == 500 && image.pixels.height == 333 && image.pixels.layout == .rgb)
            let warned = image.warnings.contains { $0.hasPrefix("CMYK ICC profile") }
            let converted = image.notes.contains { $0.contains("to sRGB through the embedded ICC profile") }
            #expect(warned == image.notes.contains { $0.contains("through the default CMYK profile") })
            #expect(warned != converted, "round \(round): \(image.notes) \(image.warnings)")
            if converted { managed += 1 } else { fellBack += 1 }
        }
        print("bit-flipped CMYK profiles: \(managed) converted through lcms2, \(fellBack) fell back")
        #expect(fellBack > 0)
    }

    /// Adobe's inverted CMYK through `TYPE_CMYK_8_REV` equals plain CMYK of the inverted values.
    @Test func invertedAndPlainInputAgree() throws {
        let full = try #require(try JPEGCodec.readInfo(try Corpus.data(Self.profiled)).iccProfile)
        let inverted = try CMYKColorTransform.make(profile: full, inverted: true).get()
        let plain = try CMYKColorTransform.make(profile: full, inverted: false).get()
        var rng = SplitMix64(seed: 7)
        let width = 257
        let stored = (0..<(width * 4)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let flipped = stored.map { 255 - $0 }
        var a = [UInt8](repeating: 0, count: width * 3), b = a
        inverted.convert(stored, stride: width * 4, into: &a, stride: width * 3, width: width, rows: 1)
        plain.convert(flipped, stride: width * 4, into: &b, stride: width * 3, width: width, rows: 1)
        #expect(a == b)
        // Full ink is near black, no ink near white (paper).
        var ends = [UInt8](repeating: 0, count: 6)
        plain.convert([255, 255, 255, 255, 0, 0, 0, 0], stride: 8, into: &ends, stride: 6, width: 2, rows: 1)
        #expect(ends[0..<3].allSatisfy { $0 < 40 } && ends[3..<6].allSatisfy { $0 > 235 }, "\(ends)")
    }

    /// The cache hands out the same transform for the same bytes and inversion, and holds at
    /// most its capacity.
    @Test func transformCacheReusesAndStaysBounded() throws {
        let profile = try #require(try JPEGCodec.readInfo(try Corpus.data(Self.profiled)).iccProfile)
        let cache = CMYKTransformCache(capacity: 2)
        let first = try cache.transform(for: profile, inverted: true).get()
        #expect(try cache.transform(for: profile, inverted: true).get() === first)
        #expect(try cache.transform(for: profile, inverted: false).get() !== first)
        #expect(cache.count == 2)
        var other = profile
        other[25] ^= 1  // the creation date: still a valid profile, different bytes
        #expect(try cache.transform(for: other, inverted: true).get() !== first)
        #expect(cache.count == 2)
        // `first` was the least recently used entry and is gone: a new build.
        #expect(try cache.transform(for: profile, inverted: true).get() !== first)
        var bad = profile
        bad[16..<20] = [0x52, 0x47, 0x42, 0x20]
        #expect(throws: CMYKColorTransform.Failure.self) { try cache.transform(for: bad, inverted: true).get() }
        #expect(cache.count == 2)
    }
}
