import Foundation
import TestSupport
import Testing

@testable import MediaTypes

@Suite("Signatures and heuristics")
struct SignatureTests {
    @Test("JPEG: FF D8 FF then any marker", arguments: [UInt8(0xE0), 0xE1, 0xE2, 0xEE, 0xDB, 0xC0, 0xC4, 0xFE, 0xED])
    func jpegMarkers(_ marker: UInt8) {
        #expect(Sniffer.identify(prefix: [0xFF, 0xD8, 0xFF, marker, 0, 16]) == .jpeg)
    }

    struct Photo: Sendable, CustomTestStringConvertible {
        let name: String
        let size: String
        let detail: String?
        var testDescription: String { name }
    }

    // From corpus SOURCES.md (photos/ table).
    static let photos: [Photo] = [
        .init(name: "mei_issue266_22mp.jpg", size: "5760x3840", detail: nil),
        .init(name: "nikon_d3100.jpg", size: "4608x3072", detail: nil),
        .init(name: "canon_eos_20d_orient6_prerotated.jpg", size: "2336x3504", detail: nil),
        .init(name: "panasonic_dmc_lc70_progressive.jpg", size: "1280x960", detail: "progressive"),
        .init(name: "mei_issue242_progressive.jpg", size: "960x1280", detail: "progressive"),
        .init(name: "mei_issue600_progressive.jpg", size: "1280x1024", detail: "progressive"),
        .init(name: "cmyk_canon_eos300d_wikimedia.jpg", size: "500x333", detail: "CMYK"),
    ]

    @Test("camera JPEGs (Exif APP1 first): size from SOF, progressive and CMYK flagged", arguments: photos)
    func photo(_ p: Photo) throws {
        let sniffed = try Sniffer.sniff([UInt8](Corpus.cameraHeader(p.name)))
        #expect(sniffed.format == .jpeg)
        #expect("\(sniffed.width ?? 0)x\(sniffed.height ?? 0)" == p.size)
        #expect(sniffed.detail == p.detail)
        #expect(sniffed.frames == 1 && !sniffed.isAnimated)
    }

    @Test(
        "SVG text sniff",
        arguments: [
            "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
            "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg>",
            "  \n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x.dtd\">\n<svg width=\"1\">",
            "<?xml version=\"1.0\"?><!DOCTYPE svg [ <!ENTITY x \"y\"> ]><SVG\tviewBox=\"0 0 1 1\">",
        ])
    func svg(_ text: String) throws {
        #expect(try Sniffer.sniff(Array(text.utf8)).format == .svg)
    }

    @Test(
        "not SVG", arguments: ["<html><svg></svg></html>", "<?xml version=\"1.0\"?><rss>", "<svgfoo>", "hello <svg>"])
    func notSVG(_ text: String) throws {
        #expect(try Sniffer.sniff(Array(text.utf8)).format == .unknown)
    }

    /// Two MPEG-1 layer III frames, 128 kbps, 44.1 kHz: 417 bytes each.
    static let mp3Frames: [UInt8] = {
        let header: [UInt8] = [0xFF, 0xFB, 0x90, 0x64]
        return (header + [UInt8](repeating: 0, count: 413)) + (header + [UInt8](repeating: 0, count: 413))
    }()

    static func id3(size: Int, footer: Bool = false) -> [UInt8] {
        let syncsafe = [
            UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F),
        ]
        return Array("ID3".utf8) + [4, 0, footer ? 0x10 : 0] + syncsafe + [UInt8](repeating: 0x20, count: size)
            + (footer ? [UInt8](repeating: 0, count: 10) : [])
    }

    @Test("MP3: ID3v2 tag skipped by its syncsafe size, then a frame sync")
    func id3() throws {
        #expect(try Sniffer.sniff(Self.id3(size: 300) + Self.mp3Frames).format == .mp3)
        #expect(try Sniffer.sniff(Self.id3(size: 300) + Self.mp3Frames).detail == "ID3v2")
        #expect(try Sniffer.sniff(Self.id3(size: 300, footer: true) + Self.mp3Frames).format == .mp3)
        // Tag followed by FLAC: not MP3.
        #expect(try Sniffer.sniff(Self.id3(size: 20) + Array("fLaC".utf8) + [0, 0, 0, 34]).format == .unknown)
        // A prefix that ends inside the tag: MP3 is the best answer.
        #expect(Sniffer.identify(prefix: Self.id3(size: 3000)) == .mp3)
    }

    @Test("MP3: bare frames need a valid header and a matching second frame")
    func bareFrames() throws {
        #expect(try Sniffer.sniff(Self.mp3Frames).format == .mp3)
        var broken = Self.mp3Frames
        broken[417] = 0x00  // second frame's sync gone
        #expect(try Sniffer.sniff(broken).format == .unknown)
        // Bad bitrate index 15, reserved layer (ADTS AAC), reserved sample rate: not MPEG audio.
        #expect(try Sniffer.sniff([0xFF, 0xFB, 0xF0, 0x64] + [UInt8](repeating: 0, count: 800)).format == .unknown)
        #expect(try Sniffer.sniff([0xFF, 0xF9, 0x90, 0x64] + [UInt8](repeating: 0, count: 800)).format == .unknown)
        #expect(try Sniffer.sniff([0xFF, 0xFB, 0x9C, 0x64] + [UInt8](repeating: 0, count: 800)).format == .unknown)
    }

    @Test("MPEG-TS: 0x47 every 188 bytes")
    func transportStream() throws {
        var packet = [UInt8](repeating: 0xFF, count: 188)
        packet[0] = 0x47; packet[1] = 0x40; packet[2] = 0x00; packet[3] = 0x10
        #expect(try Sniffer.sniff(packet + packet + packet + packet).format == .mpegts)
        #expect(Sniffer.identify(prefix: packet) == .mpegts)
        var broken = packet + packet + packet
        broken[376] = 0x00
        #expect(try Sniffer.sniff(broken).format == .unknown)
        #expect(try Sniffer.sniff(Array("Good morning, this is text".utf8)).format == .unknown)
        #expect(try Sniffer.sniff(Array("BMW".utf8)).format == .unknown)
    }

    @Test("QuickTime without ftyp, and free before ftyp")
    func quickTime() throws {
        let moov: [UInt8] = [0, 0, 0, 16] + Array("moov".utf8) + [0, 0, 0, 8] + Array("mvhd".utf8)
        #expect(try Sniffer.sniff(moov).format == .mov)
        let freeThenFtyp: [UInt8] =
            [0, 0, 0, 8] + Array("free".utf8) + [0, 0, 0, 20] + Array("ftypM4A ".utf8) + [0, 0, 0, 0]
            + Array("isom".utf8)
        #expect(try Sniffer.sniff(freeThenFtyp).format == .m4a)
    }

    @Test(
        "ISO-BMFF brand decisions",
        arguments: [
            ("heic", ["mif1", "heic"], MediaFormat.heic), ("mif1", ["mif1"], .heif), ("mif1", ["mif1", "avif"], .avif),
            ("msf1", ["msf1", "hevc"], .heic), ("avis", ["avis", "msf1"], .avif), ("isom", ["isom", "avc1"], .mp4),
            ("mp42", ["mp42", "isom"], .mp4), ("M4V ", ["M4V ", "mp42"], .m4v), ("M4A ", ["isom"], .m4a),
            ("qt  ", ["qt  "], .mov), ("3gp5", ["isom"], .mp4), ("isom", ["isom", "M4A "], .m4a),
            ("crx ", [], .unknown),
        ])
    func brands(_ major: String, _ compatible: [String], _ expected: MediaFormat) {
        #expect(ISOBaseMediaBrands.format(major: major, compatible: compatible) == expected)
    }

    @Test("MPEG program stream and elementary video")
    func mpeg() throws {
        let elementary = try Sniffer.sniff([0, 0, 1, 0xB3, 0x14, 0x00, 0xF0, 0x13] + [UInt8](repeating: 0, count: 8))
        #expect(elementary.format == .mpeg && elementary.detail == "elementary video")
        let program = try Sniffer.sniff([0, 0, 1, 0xBA, 0x44] + [UInt8](repeating: 0, count: 8))
        #expect(program.format == .mpeg && program.detail == "program stream")
    }

    @Test("identifyPrefixLength is what identify reads")
    func prefixLength() throws {
        #expect(Sniffer.identifyPrefixLength == 64)
        let png = try corpusBytes("pngsuite/basn2c08.png")
        #expect(Sniffer.identify(prefix: png) == .png)
    }
}
