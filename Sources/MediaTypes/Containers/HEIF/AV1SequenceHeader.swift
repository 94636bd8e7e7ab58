/// The maximum frame size and colour facts of an AV1 stream, from its sequence header OBU
/// (AV1 specification §5.5), found in an `av1C` box's configOBUs or at the start of an item's data.
///
///     let header = try AV1SequenceHeader(obus: av1CBody.dropFirst(4))
///     header?.maxWidth, header?.maxHeight   // max_frame_width/height_minus_1 + 1
///     header?.monochrome, header?.fullRange
///
/// No frame may be larger than the maximum, so it bounds what the decoder allocates.
package struct AV1SequenceHeader: Equatable {
    package let maxWidth: Int
    package let maxHeight: Int
    package let monochrome: Bool
    /// `color_range`: true for full range (0...255 at 8 bits), false for limited (16...235).
    package let fullRange: Bool

    /// The first sequence header among the OBUs in `obus` (each with its size field, as
    /// AV1-ISOBMFF requires); nil when the OBUs hold none before the data ends or a frame starts.
    ///
    /// - Throws: `.damaged` when an OBU or the sequence header is cut short.
    package init?(obus: ArraySlice<UInt8>) throws(HEIFStructureError) {
        let bytes = Array(obus)
        var p = 0
        while p < bytes.count {
            let header = bytes[p]
            let type = Int(header >> 3) & 15
            let hasExtension = header & 4 != 0
            guard header & 2 != 0 else { throw .damaged("an AV1 OBU of type \(type) has no size field") }
            p += hasExtension ? 2 : 1
            // leb128 size
            var size = 0
            var shift = 0
            while true {
                guard p < bytes.count, shift < 56 else { throw .damaged("an AV1 OBU header is cut short") }
                let byte = Int(bytes[p])
                size |= (byte & 0x7F) << shift
                p += 1
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            if type == 1 {
                guard size <= bytes.count - p else { throw .damaged("the AV1 sequence header is cut short") }
                try self.init(sequenceHeader: Array(bytes[p..<(p + size)]))
                return
            }
            // A frame header, frame or tile group before any sequence header: there is none.
            if [3, 4, 6].contains(type) { return nil }
            guard size <= bytes.count - p else { return nil }
            p += size
        }
        return nil
    }

    /// Parses a sequence header OBU's payload (§5.5.1 to §5.5.2).
    init(sequenceHeader payload: [UInt8]) throws(HEIFStructureError) {
        var bits = BitReader(payload)
        do {
            let profile = try bits.bits(3)
            try bits.skip(1)  // still_picture
            let reduced = try bits.flag()
            if reduced {
                try bits.skip(5)  // seq_level_idx[0]
            } else {
                try Self.skipTimingAndOperatingPoints(&bits)
            }
            let widthBits = try bits.bits(4) + 1, heightBits = try bits.bits(4) + 1
            maxWidth = try bits.bits(widthBits) + 1
            maxHeight = try bits.bits(heightBits) + 1
            if !reduced, try bits.flag() { try bits.skip(4 + 3) }  // frame_id_numbers_present_flag
            try bits.skip(3)  // use_128x128_superblock, enable_filter_intra, enable_intra_edge_filter
            if !reduced { try Self.skipInterTools(&bits) }
            try bits.skip(3)  // enable_superres, enable_cdef, enable_restoration
            (monochrome, fullRange) = try Self.colorConfig(&bits, profile: profile)
        } catch {
            throw .damaged("the AV1 sequence header is cut short")
        }
    }

    /// timing_info, decoder_model_info and the operating points (§5.5.1), when not reduced.
    private static func skipTimingAndOperatingPoints(_ bits: inout BitReader) throws {
        var decoderModel = false
        var bufferDelayLength = 0
        if try bits.flag() {  // timing_info_present_flag
            try bits.skip(64)  // num_units_in_display_tick, time_scale
            if try bits.flag() { _ = try bits.uvlc() }  // equal_picture_interval
            decoderModel = try bits.flag()
            if decoderModel {
                bufferDelayLength = try bits.bits(5) + 1
                try bits.skip(32 + 5 + 5)
            }
        }
        let initialDisplayDelay = try bits.flag()
        let operatingPoints = try bits.bits(5) + 1
        for _ in 0..<operatingPoints {
            try bits.skip(12)  // operating_point_idc
            if try bits.bits(5) > 7 { try bits.skip(1) }  // seq_level_idx, seq_tier
            if decoderModel, try bits.flag() { try bits.skip(2 * bufferDelayLength + 1) }
            if initialDisplayDelay, try bits.flag() { try bits.skip(4) }
        }
    }

    /// The inter-prediction tool flags (§5.5.1), when not reduced.
    private static func skipInterTools(_ bits: inout BitReader) throws {
        try bits.skip(4)  // interintra, masked compound, warped motion, dual filter
        let orderHint = try bits.flag()
        if orderHint { try bits.skip(2) }  // jnt_comp, ref_frame_mvs
        var forceScreenContent = 2
        if !(try bits.flag()) { forceScreenContent = try bits.bits(1) }  // seq_choose_screen_content_tools
        if forceScreenContent > 0, !(try bits.flag()) { try bits.skip(1) }  // seq_choose_integer_mv
        if orderHint { try bits.skip(3) }
    }

    /// color_config (§5.5.2): monochrome, and the full-range flag.
    private static func colorConfig(_ bits: inout BitReader, profile: Int) throws -> (monochrome: Bool, fullRange: Bool) {
        let highBitDepth = try bits.flag()
        if profile == 2, highBitDepth { try bits.skip(1) }
        let monochrome = profile == 1 ? false : try bits.flag()
        var primaries = 2, transfer = 2, matrix = 2
        if try bits.flag() {
            primaries = try bits.bits(8)
            transfer = try bits.bits(8)
            matrix = try bits.bits(8)
        }
        if !monochrome, primaries == 1, transfer == 13, matrix == 0 {
            return (monochrome, true)  // sRGB with identity matrix
        }
        return (monochrome, try bits.flag())
    }
}
