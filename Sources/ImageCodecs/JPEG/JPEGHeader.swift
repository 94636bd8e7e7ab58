import MediaTypes

/// What the marker segments say, read with the shared `JPEGSegments` walker: frame type,
/// precision, Adobe transform and ICC chunks. Decoding takes all of this from libjpeg; the walk
/// is for the failure path (`unsupportedReason` names what libjpeg only calls "Unsupported JPEG
/// process") and for tests.
///
///     let header = JPEGHeader(bytes)   // nil fields when the markers cannot be walked
struct JPEGHeader: Sendable {
    /// The SOF marker byte (0xC0...0xCF), or nil when no frame header was found.
    var frameMarker: UInt8?
    var precision: Int?
    var width: Int?
    var height: Int?
    var components: Int?
    /// The Adobe APP14 transform byte (0 = none/CMYK, 1 = YCbCr, 2 = YCCK), when APP14 is present.
    var adobeTransform: UInt8?
    /// A JPEG-LS frame (SOF55, 0xF7): a different codec that libjpeg does not implement.
    var isJPEGLS = false
    var iccProfile: [UInt8]?
    /// Problems found while reading metadata (a missing ICC chunk, ...).
    var notes: [String] = []
    /// DQT and DHT segments come before the first scan. Files without (Motion-JPEG style, or
    /// arithmetic-coded: no DHT) took the previous image's tables when TurboJPEG decompress
    /// handles were pooled; every decode now has a fresh decompressor.
    var bringsItsOwnTables = false

    init(_ bytes: [UInt8]) {
        guard let segments = try? JPEGSegments.read(bytes) else { return }
        var iccChunks: [(sequence: UInt8, count: UInt8, payload: ArraySlice<UInt8>)] = []
        bringsItsOwnTables = segments.contains { $0.marker == 0xDB } && segments.contains { $0.marker == 0xC4 }
        for segment in segments {
            let payload = bytes[segment.payloadRange]
            if segment.marker == 0xF7 { isJPEGLS = true }
            if segment.isStartOfFrame, frameMarker == nil, payload.count >= 6 {
                let p = payload.startIndex
                frameMarker = segment.marker
                precision = Int(payload[p])
                height = Int(payload[p + 1]) << 8 | Int(payload[p + 2])
                width = Int(payload[p + 3]) << 8 | Int(payload[p + 4])
                components = Int(payload[p + 5])
            } else if segment.marker == 0xEE, payload.count >= 12, payload.starts(with: Array("Adobe".utf8)) {
                adobeTransform = payload[payload.startIndex + 11]
            } else if segment.marker == 0xE2, payload.count > 14, payload.starts(with: JPEGICC.signature) {
                let p = payload.startIndex
                iccChunks.append((payload[p + 12], payload[p + 13], payload[(p + 14)...]))
            }
        }
        if !iccChunks.isEmpty {
            switch JPEGICC.assemble(iccChunks) {
            case .success(let profile): iccProfile = profile
            case .failure(let reason): notes.append(reason.message)
            }
        }
    }

    /// SOF2, SOF6, SOF10, SOF14.
    var isProgressive: Bool? { frameMarker.map { [0xC2, 0xC6, 0xCA, 0xCE].contains($0) } }
    /// SOF3, SOF7, SOF11, SOF15.
    var isLossless: Bool { frameMarker.map { [0xC3, 0xC7, 0xCB, 0xCF].contains($0) } ?? false }

    /// Why libjpeg-turbo 2.1 (8-bit, DCT only) cannot decode this frame, or nil when it can.
    var unsupportedReason: String? {
        if isJPEGLS { return "JPEG-LS (SOF55) is not supported" }
        if isLossless, let frameMarker {
            return "lossless JPEG (SOF\(frameMarker - 0xC0)) is not supported"
        }
        if let precision, precision != 8 {
            return "\(precision)-bit JPEG samples are not supported (only 8-bit)"
        }
        return nil
    }
}
