import Foundation
import TestSupport
import Testing

@testable import MediaTypes

/// What each file in `corpus/small` and `small/extra` must sniff as, written down by hand.
struct SmallCorpusCase: CustomTestStringConvertible, Sendable {
    let path: String
    let format: MediaFormat
    var width: Int? = nil
    var height: Int? = nil
    var detail: String? = nil
    /// The header lies or is cut short: sniff throws, naming this format.
    var throwsAs: Bool = false
    var testDescription: String { path }
}

let smallCorpusCases: [SmallCorpusCase] = [
    // Formats we recognise.
    .init(path: "small/jpeg.jpg", format: .jpeg, width: 1, height: 1),
    .init(path: "small/png-transparent.png", format: .png, width: 1, height: 1),
    // A 14-byte GIF with a screen descriptor and a trailer but no image: nothing to show.
    .init(path: "small/gif.gif", format: .gif, throwsAs: true),
    .init(path: "small/gif-transparent.gif", format: .gif, width: 1, height: 1),
    // The 26-byte "smallest WebP": its VP8L header really says 11330x446.
    .init(path: "small/webp.webp", format: .webp, width: 11330, height: 446, detail: "VP8L"),
    // Cut inside its IDAT: the header is whole (the decoder reports the cut image data).
    .init(path: "small/png-truncated.png", format: .png, width: 1, height: 1),
    .init(path: "small/bmp.bmp", format: .bmp, width: 1, height: 1),
    .init(path: "small/ico.ico", format: .ico, width: 1, height: 1),
    .init(path: "small/tiff.tif", format: .tiff, width: 1, height: 1, detail: "big-endian"),
    .init(path: "small/svg.svg", format: .svg),
    .init(path: "small/pdf.pdf", format: .pdf),
    .init(path: "small/mp3.mp3", format: .mp3),
    .init(path: "small/wav.wav", format: .wav),
    .init(path: "small/AudioVideoInterleave.avi", format: .avi),
    .init(path: "small/Mpeg4.mp4", format: .mp4, detail: "isom"),
    .init(path: "small/mp4-with-audio.mp4", format: .mp4, detail: "isom"),
    .init(path: "small/heif.heif", format: .heic, width: 64, height: 64, detail: "heic"),
    .init(path: "small/extra/ianare_iphone_IMG_5195.heic", format: .heic, width: 2566, height: 3313, detail: "heic"),
    // Major brand mif1 with heic compatible: the specific codec wins.
    .init(path: "small/extra/mimetype_heif.heif", format: .heic, width: 1836, height: 1918, detail: "mif1"),
    .init(path: "small/extra/mimetype_avif.avif", format: .avif, width: 320, height: 180, detail: "avif"),
    .init(path: "small/extra/mimetype_avifsequence.avif", format: .avif, width: 499, height: 479, detail: "avis"),
    .init(path: "small/extra/sharp_pitm.avif", format: .avif, width: 4096, height: 800, detail: "avif"),
    // 3GPP is treated as MP4 (same container; see ISOBaseMediaBrands).
    .init(path: "small/extra/mimetype_3gp.3gp", format: .mp4, detail: "3gp4"),
    .init(path: "small/extra/mimetype_audio.mp4", format: .m4a, detail: "M4B"),
    .init(path: "small/extra/mimetype_m4a.m4a", format: .m4a, detail: "M4A"),
    .init(path: "small/extra/mimetype_mov.mov", format: .mov, detail: "qt"),
    .init(path: "small/extra/mimetype_aiff.aiff", format: .aiff, detail: "AIFF"),
    .init(path: "small/extra/mimetype_mp3.v2.notag.mp3", format: .mp3),
    .init(path: "small/extra/mimetype_mpeg.mpeg", format: .mpeg, detail: "program stream"),
    // Formats we do not list: unknown, never a crash.
    .init(path: "small/FlashVideo.flv", format: .unknown),
    .init(path: "small/WindowsMediaVideo.wmv", format: .unknown),
    .init(path: "small/webm.webm", format: .webm),
    .init(path: "small/bpg.bpg", format: .unknown),
    .init(path: "small/jxl.jxl", format: .unknown),
    .init(path: "small/extra/mimetype_jxl.jxl", format: .unknown),
    .init(path: "small/jpeg2.jp2", format: .jp2),
    .init(path: "small/dicom.dcm", format: .unknown),
    .init(path: "small/mng.mng", format: .unknown),
    .init(path: "small/flash.swf", format: .unknown),
    .init(path: "small/gzip.gz", format: .unknown),
    .init(path: "small/zip.zip", format: .unknown),
    .init(path: "small/html5.html", format: .unknown),
    .init(path: "small/icc.icc", format: .unknown),
    .init(path: "small/pbm.pbm", format: .unknown),
    .init(path: "small/pgm.pgm", format: .unknown),
    .init(path: "small/ppm.ppm", format: .unknown),
    .init(path: "small/targa.tga", format: .unknown),
    .init(path: "small/x-bitmap.xbm", format: .unknown),
    .init(path: "small/extra/mimetype_flac.flac", format: .flac),
    .init(path: "small/extra/mimetype_ogg.oga", format: .ogg),
]

@Suite("Sniffing corpus/small")
struct SmallCorpusTests {
    @Test("format, dimensions and detail", arguments: smallCorpusCases)
    func sniffs(_ expected: SmallCorpusCase) throws {
        let bytes = try corpusBytes(expected.path)
        #expect(Sniffer.identify(prefix: Array(bytes.prefix(Sniffer.identifyPrefixLength))) == expected.format)
        if expected.throwsAs {
            let error = #expect(throws: SniffError.self) { try Sniffer.sniff(bytes) }
            #expect(error?.format == expected.format)
            return
        }
        let sniffed = try Sniffer.sniff(bytes)
        #expect(sniffed.format == expected.format)
        if let width = expected.width { #expect(sniffed.width == width) }
        if let height = expected.height { #expect(sniffed.height == height) }
        if let detail = expected.detail { #expect(sniffed.detail == detail) }
        #expect(sniffed.uti == expected.format.uti)
        #expect(sniffed.fileExtension == expected.format.fileExtension)
    }

    @Test("every file of corpus/small is in the table")
    func tableCoversDirectory() {
        let listed = Set(smallCorpusCases.map(\.path))
        let onDisk = Corpus.files(in: "small").map(corpusRelative).filter { !$0.hasSuffix("LICENSE") }
        #expect(
            Set(onDisk).subtracting(listed).isEmpty, "not in the table: \(Set(onDisk).subtracting(listed).sorted())")
    }
}
