import Foundation
import ImageEngine
import MediaTypes
import TestSupport
import Testing

/// Hand-built Exif blobs and JPEG wrappers.
enum ExifFixture {
    struct Entry { var tag: UInt16; var type: UInt16; var count: UInt32; var value: UInt32 }

    static func orientation(_ value: UInt16) -> Entry { Entry(tag: 0x0112, type: 3, count: 1, value: UInt32(value)) }

    /// A TIFF header plus IFD0 at offset 8. SHORT values sit left-aligned in the value field.
    static func tiff(bigEndian: Bool, entries: [Entry], ifdOffset: UInt32 = 8, entryCount: UInt16? = nil) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] {
            bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
        func u32(_ v: UInt32) -> [UInt8] {
            let b = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return bigEndian ? b : b.reversed()
        }
        var out: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        out += u16(42) + u32(ifdOffset) + u16(entryCount ?? UInt16(entries.count))
        for e in entries {
            out += u16(e.tag) + u16(e.type) + u32(e.count)
            out += e.type == 3 ? u16(UInt16(e.value)) + [0, 0] : u32(e.value)
        }
        return out + u32(0)
    }

    /// SOI, the given APP segments, a minimal SOS and EOI.
    static func jpeg(app1: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        for payload in app1 {
            let length = payload.count + 2
            out += [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        return out + [0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 63, 0] + [0x12, 0x34, 0xFF, 0xD9]
    }

    static func exifJPEG(_ tiff: [UInt8]) -> [UInt8] { jpeg(app1: [Array("Exif\0\0".utf8) + tiff]) }
}

@Suite struct ExifOrientationTests {
    @Test(arguments: [true, false], Orientation.allCases)
    func readsBothByteOrders(bigEndian: Bool, orientation: Orientation) throws {
        let other = ExifFixture.Entry(tag: 0x010F, type: 2, count: 4, value: 0x4142_4300)  // Make, before
        let later = ExifFixture.Entry(tag: 0x0131, type: 2, count: 3, value: 0x5858_0000)  // Software, after
        let tiff = ExifFixture.tiff(
            bigEndian: bigEndian,
            entries: [other, .init(tag: 0x0112, type: 3, count: 1, value: UInt32(orientation.rawValue)), later])
        #expect(try ExifOrientation.read(jpeg: ExifFixture.exifJPEG(tiff)) == orientation)
        #expect(try ExifOrientation.read(tiff: tiff) == orientation)
    }

    @Test func noExifOrNoTagIsUp() throws {
        #expect(try ExifOrientation.read(jpeg: ExifFixture.jpeg(app1: [])) == .up)
        let noTag = ExifFixture.tiff(bigEndian: false, entries: [.init(tag: 0x010F, type: 2, count: 4, value: 0)])
        #expect(try ExifOrientation.read(jpeg: ExifFixture.exifJPEG(noTag)) == .up)
    }

    @Test(arguments: [UInt16(0), 9, 0xFFFF])
    func unknownValuesMeanUp(value: UInt16) throws {
        let tiff = ExifFixture.tiff(bigEndian: value % 2 == 0, entries: [ExifFixture.orientation(value)])
        #expect(try ExifOrientation.read(jpeg: ExifFixture.exifJPEG(tiff)) == .up)
    }

    @Test func skipsAnXMPApp1BeforeTheExifOne() throws {
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0<x/>".utf8)
        let exif = Array("Exif\0\0".utf8) + ExifFixture.tiff(bigEndian: true, entries: [ExifFixture.orientation(8)])
        #expect(try ExifOrientation.read(jpeg: ExifFixture.jpeg(app1: [xmp, exif])) == .left)
    }

    @Test func lyingBlocksThrowClearErrors() {
        let six = [ExifFixture.orientation(6)]
        func read(_ tiff: [UInt8]) throws(ExifError) -> Orientation {
            try ExifOrientation.read(jpeg: ExifFixture.exifJPEG(tiff))
        }

        // IFD offset past the end of the block.
        #expect(throws: ExifError.self) {
            try read(ExifFixture.tiff(bigEndian: false, entries: six, ifdOffset: 0xFFFF_FFF0))
        }
        // Entry count larger than the block holds.
        do {
            _ = try read(ExifFixture.tiff(bigEndian: true, entries: six, entryCount: 4000))
            Issue.record("lying entry count was accepted")
        } catch {
            guard case .outOfBounds(let what, _, _, _) = error else { Issue.record("wrong error \(error)"); return }
            #expect(what == "IFD0 entries")
            #expect(error.description.contains("strip it"))
        }
        // Truncated header, bad byte order, bad magic.
        #expect(throws: ExifError.outOfBounds(what: "IFD0 offset", offset: 4, wanted: 4, blockLength: 5)) {
            try read([0x49, 0x49, 42, 0, 8])
        }
        var order = ExifFixture.tiff(bigEndian: false, entries: six)
        order[0] = 0x41
        #expect(throws: ExifError.badByteOrder(offset: 12, found: 0x4149)) { try read(order) }
        var magic = ExifFixture.tiff(bigEndian: true, entries: six)
        magic[3] = 43
        #expect(throws: ExifError.badMagic(offset: 14, found: 43)) { try read(magic) }
        // Wrong type, wrong count.
        #expect(throws: ExifError.self) {
            try read(ExifFixture.tiff(bigEndian: false, entries: [.init(tag: 0x0112, type: 4, count: 1, value: 6)]))
        }
        #expect(throws: ExifError.self) {
            try read(ExifFixture.tiff(bigEndian: false, entries: [.init(tag: 0x0112, type: 3, count: 70000, value: 6)]))
        }
        // Broken JPEG markers.
        #expect(throws: ExifError.jpeg(.notJPEG)) { try ExifOrientation.read(jpeg: [0x89, 0x50]) }
    }

    @Test(arguments: ["Landscape", "Portrait"], 0...8)
    func orientationCorpus(shape: String, n: Int) throws {
        let bytes = [UInt8](try Corpus.data("orientation/\(shape)_\(n).jpg"))
        #expect(try ExifOrientation.read(jpeg: bytes).rawValue == max(n, 1))
    }

    @Test(
        arguments: [
            ("apple_iphone5_orient3.jpg", Orientation.down),
            ("canon_eos_1000d_orient6.jpg", .right),
            ("leica_t_typ701_orient8.jpg", .left),
        ])
    func cameraPhotos(name: String, expected: Orientation) throws {
        #expect(try ExifOrientation.read(jpeg: [UInt8](try Corpus.cameraHeader(name))) == expected)
    }

    /// 2000 seeded random mutations of a real camera header: each parse returns or throws.
    @Test func mutatedHeadersNeverTrap() throws {
        let file = [UInt8](try Corpus.cameraHeader("canon_eos_1000d_orient6.jpg"))
        let segments = try JPEGSegments.read(file)
        let exif = try #require(segments.first { $0.marker == 0xE1 })
        let header = Array(file[..<(segments.last!.payloadRange.upperBound)])
        let hot = exif.payloadOffset..<min(exif.payloadRange.upperBound, exif.payloadOffset + 512)
        var rng = SplitMix64(seed: 0xE81F)
        var outcomes = (returned: 0, threw: 0)
        for _ in 0..<2000 {
            var bytes = header
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                // Mostly the TIFF header and IFD0, sometimes anywhere (including segment lengths).
                let at =
                    Int.random(in: 0..<10, using: &rng) < 8
                    ? Int.random(in: hot, using: &rng) : Int.random(in: 0..<bytes.count, using: &rng)
                bytes[at] = UInt8.random(in: 0...255, using: &rng)
            }
            if Int.random(in: 0..<8, using: &rng) == 0 {
                bytes.removeLast(Int.random(in: 0..<bytes.count, using: &rng))
            }
            do {
                _ = try ExifOrientation.read(jpeg: bytes)
                outcomes.returned += 1
            } catch {
                #expect(!error.description.isEmpty)
                outcomes.threw += 1
            }
        }
        #expect(outcomes.returned + outcomes.threw == 2000)
        #expect(outcomes.threw > 0 && outcomes.returned > 0)
    }
}
