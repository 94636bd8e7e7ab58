import Testing

@testable import MediaTypes

/// The HEVC SPS and AV1 sequence header readers, on hand-built headers: the cases a flat test
/// file does not reach (sub-layers in profile_tier_level, emulation-prevention bytes, timing info).
@Suite("HEIF stream headers")
struct HEIFStreamHeaderTests {
    /// Writes bits most-significant first, as the specifications read them.
    struct BitWriter {
        var bytes: [UInt8] = []
        var count = 0
        mutating func put(_ value: Int, _ n: Int) {
            for i in stride(from: n - 1, through: 0, by: -1) {
                if count % 8 == 0 { bytes.append(0) }
                bytes[bytes.count - 1] |= UInt8((value >> i) & 1) << (7 - UInt8(count % 8))
                count += 1
            }
        }
        mutating func ue(_ value: Int) {
            let n = (value + 1).bitWidth - (value + 1).leadingZeroBitCount
            put(0, n - 1)
            put(value + 1, n)
        }
    }

    /// An SPS NAL unit (header 0x42 0x01) with `subLayers` sub-layers, each with a profile and a level.
    static func sps(width: Int, height: Int, subLayers: Int, crop: Int = 0) -> [UInt8] {
        var w = BitWriter()
        w.put(0, 4)
        w.put(subLayers, 3)
        w.put(1, 1)
        w.put(0, 88)
        w.put(93, 8)  // general level
        for _ in 0..<subLayers { w.put(0b11, 2) }
        if subLayers > 0 { w.put(0, 2 * (8 - subLayers)) }
        for _ in 0..<subLayers { w.put(0, 88 + 8) }
        w.ue(0)  // sps id
        w.ue(1)  // 4:2:0
        w.ue(width)
        w.ue(height)
        w.put(crop > 0 ? 1 : 0, 1)
        if crop > 0 { for side in [0, crop, 0, crop] { w.ue(side) } }
        w.put(1, 1)  // stop bit (the rest of the SPS is not read)
        // Emulation prevention: 00 00 followed by 00...03 gets an 03 inserted.
        var out: [UInt8] = [0x42, 0x01]
        var zeros = 0
        for byte in w.bytes {
            if zeros >= 2, byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    @Test(arguments: [0, 1, 3, 6])
    func spsSizesAcrossSubLayers(_ subLayers: Int) throws {
        let nal = Self.sps(width: 14000, height: 10000, subLayers: subLayers)
        // The 88 zero bits of the general profile make 00 00 03 sequences: they must be removed.
        #expect(nal.indices.dropLast(2).contains { nal[$0] == 0 && nal[$0 + 1] == 0 && nal[$0 + 2] == 3 })
        let sps = try HEVCSequenceParameterSet(nalUnit: nal[...])
        #expect(sps.codedWidth == 14000 && sps.codedHeight == 10000)
        #expect(sps.width == 14000 && sps.height == 10000 && sps.chromaFormat == 1)
    }

    @Test func conformanceWindowCropsInChromaUnits() throws {
        let sps = try HEVCSequenceParameterSet(nalUnit: Self.sps(width: 1024, height: 688, subLayers: 0, crop: 3)[...])
        #expect(sps.codedWidth == 1024 && sps.codedHeight == 688)
        #expect(sps.width == 1018 && sps.height == 682)
    }

    @Test func aCutShortSPSIsDamaged() {
        let nal = Self.sps(width: 640, height: 480, subLayers: 2)
        #expect(throws: HEIFStructureError.self) { try HEVCSequenceParameterSet(nalUnit: nal.prefix(12)) }
        #expect(throws: HEIFStructureError.damaged("the 'hvcC' box holds no sequence parameter set")) {
            try HEVCSequenceParameterSet(hvcC: ([UInt8](repeating: 0, count: 22) + [0])[...])
        }
    }

    /// A full (not reduced) sequence header with timing and decoder-model info and two operating
    /// points, monochrome, limited range.
    @Test func av1SequenceHeaderWithTimingInfo() throws {
        var w = BitWriter()
        w.put(0, 3)  // profile
        w.put(0, 1)
        w.put(0, 1)  // not reduced
        w.put(1, 1)  // timing_info_present
        w.put(1, 32)
        w.put(30, 32)
        w.put(1, 1)  // equal_picture_interval
        w.put(0b1, 1)  // uvlc 0
        w.put(1, 1)  // decoder_model_info_present
        w.put(9, 5)  // buffer_delay_length_minus_1
        w.put(1, 32)
        w.put(0, 10)
        w.put(1, 1)  // initial_display_delay_present
        w.put(1, 5)  // two operating points
        for level in [9, 4] {
            w.put(0, 12)
            w.put(level, 5)
            if level > 7 { w.put(0, 1) }
            w.put(1, 1)  // decoder_model_present_for_this_op
            w.put(0, 10 + 10 + 1)
            w.put(1, 1)
            w.put(3, 4)
        }
        w.put(13, 4)
        w.put(13, 4)
        w.put(13999, 14)
        w.put(9999, 14)
        w.put(0, 1)  // frame ids
        w.put(0, 3)
        w.put(0, 4)
        w.put(1, 1)  // order hint
        w.put(0, 2)
        w.put(1, 1)  // seq_choose_screen_content_tools
        w.put(1, 1)  // seq_choose_integer_mv
        w.put(6, 3)
        w.put(0, 3)
        w.put(0, 1)  // high_bitdepth
        w.put(1, 1)  // mono_chrome
        w.put(0, 1)  // no colour description
        w.put(0, 1)  // color_range: limited
        let payload = w.bytes
        let obus: [UInt8] = [0x12, 0x00, 0x0A, UInt8(payload.count)] + payload
        let header = try #require(try AV1SequenceHeader(obus: obus[...]))
        #expect(header.maxWidth == 14000 && header.maxHeight == 10000)
        #expect(header.monochrome && !header.fullRange)
    }
}
