/// The coded picture size and chroma format of an HEVC stream, from the sequence parameter set
/// (SPS, NAL unit type 33) in an `hvcC` box (ISO/IEC 14496-15 §8.3.3, ITU-T H.265 §7.3.2.2).
///
///     let sps = try HEVCSequenceParameterSet(hvcC: bytes[box.body])
///     sps.codedWidth, sps.codedHeight   // pic_width/height_in_luma_samples: what the decoder allocates
///     sps.width, sps.height             // after the conformance window: the picture shown
///
/// Emulation-prevention bytes (`00 00 03`) are removed before the bits are read.
package struct HEVCSequenceParameterSet: Equatable {
    /// `pic_width_in_luma_samples`, `pic_height_in_luma_samples`.
    package let codedWidth: Int
    package let codedHeight: Int
    /// The size after the conformance window crop.
    package let width: Int
    package let height: Int
    /// 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    package let chromaFormat: Int

    /// Parses the first SPS in an `hvcC` box body.
    ///
    /// - Throws: `.damaged` saying which part is missing or cut short.
    package init(hvcC: ArraySlice<UInt8>) throws(HEIFStructureError) {
        let box = Array(hvcC)
        // 22 bytes of configuration, then numOfArrays and the arrays of NAL units.
        guard box.count >= 23 else { throw .damaged("the 'hvcC' box is cut short (\(box.count) bytes)") }
        var p = 23
        for _ in 0..<box[22] {
            guard p + 3 <= box.count else { break }
            let type = Int(box[p] & 0x3F)
            let count = Int(box[p + 1]) << 8 | Int(box[p + 2])
            p += 3
            for _ in 0..<count {
                guard p + 2 <= box.count else { break }
                let length = Int(box[p]) << 8 | Int(box[p + 1])
                p += 2
                guard length <= box.count - p else {
                    throw .damaged("a NAL unit in 'hvcC' claims \(length) bytes, past the end of the box")
                }
                if type == 33 {
                    try self.init(nalUnit: box[p..<(p + length)])
                    return
                }
                p += length
            }
        }
        throw .damaged("the 'hvcC' box holds no sequence parameter set")
    }

    /// Parses one SPS NAL unit (its 2-byte header included).
    package init(nalUnit: ArraySlice<UInt8>) throws(HEIFStructureError) {
        var bits = BitReader(Self.removingEmulationPrevention(nalUnit.dropFirst(2)))
        do {
            try bits.skip(4)  // sps_video_parameter_set_id
            let subLayers = try bits.bits(3)  // sps_max_sub_layers_minus1
            try bits.skip(1)  // sps_temporal_id_nesting_flag
            try Self.skipProfileTierLevel(&bits, subLayers: subLayers)
            _ = try bits.exponentialGolomb()  // sps_seq_parameter_set_id
            let chroma = try bits.exponentialGolomb()
            guard chroma <= 3 else { throw HEIFStructureError.damaged("the HEVC SPS has chroma_format_idc \(chroma)") }
            if chroma == 3 { try bits.skip(1) }  // separate_colour_plane_flag
            let w = try bits.exponentialGolomb(), h = try bits.exponentialGolomb()
            var crop = (left: 0, right: 0, top: 0, bottom: 0)
            if try bits.flag() {
                crop = (
                    try bits.exponentialGolomb(), try bits.exponentialGolomb(), try bits.exponentialGolomb(),
                    try bits.exponentialGolomb()
                )
            }
            // Crop offsets count chroma samples: SubWidthC and SubHeightC luma samples each.
            let subWidth = chroma == 1 || chroma == 2 ? 2 : 1, subHeight = chroma == 1 ? 2 : 1
            codedWidth = w
            codedHeight = h
            width = w - subWidth * (crop.left + crop.right)
            height = h - subHeight * (crop.top + crop.bottom)
            chromaFormat = chroma
        } catch let error as HEIFStructureError {
            throw error
        } catch {
            throw .damaged("the HEVC sequence parameter set is cut short")
        }
        guard codedWidth > 0, codedHeight > 0, width > 0, height > 0 else {
            throw .damaged("the HEVC SPS gives a \(codedWidth)x\(codedHeight) picture cropped to \(width)x\(height)")
        }
    }

    /// `profile_tier_level(1, sps_max_sub_layers_minus1)` (H.265 §7.3.3): general profile (88
    /// bits) and level (8), then per sub-layer two presence flags, padding to 8 entries, and the
    /// sub-layer profiles and levels that are present.
    static func skipProfileTierLevel(_ bits: inout BitReader, subLayers: Int) throws(BitReader.End) {
        try bits.skip(88 + 8)
        var present: [(profile: Bool, level: Bool)] = []
        for _ in 0..<subLayers { present.append((try bits.flag(), try bits.flag())) }
        if subLayers > 0 { try bits.skip(2 * (8 - subLayers)) }
        for layer in present {
            if layer.profile { try bits.skip(88) }
            if layer.level { try bits.skip(8) }
        }
    }

    /// The RBSP of a NAL unit: each `00 00 03` loses its `03`.
    static func removingEmulationPrevention(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var zeros = 0
        for byte in bytes {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
        return out
    }
}
