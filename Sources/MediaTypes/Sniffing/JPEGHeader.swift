/// JPEG facts from the start-of-frame segment, found with the shared `JPEGSegments` walker.
/// Like libjpeg, it tolerates junk bytes between segments (libjpeg decodes such files with a
/// warning); a segment that runs past the end or a missing SOF still throws.
///
///     try JPEGHeader.sniff(bytes).detail  // "progressive, CMYK"
enum JPEGHeader {
    static func sniff(_ bytes: [UInt8]) throws(SniffError) -> SniffedType {
        let segments: [JPEGSegment]
        do {
            segments = try JPEGSegments.read(bytes, skippingExtraneousBytes: true) { $0.isStartOfFrame }
        } catch {
            switch error {
            case .truncated(let at):
                throw .truncated(format: .jpeg, detail: "a marker segment runs past the end at byte \(at)")
            case .notJPEG: throw .invalidHeader(format: .jpeg, detail: "no start-of-image marker")
            default: throw .invalidHeader(format: .jpeg, detail: error.description)
            }
        }
        guard let sof = segments.first(where: \.isStartOfFrame) else {
            throw .invalidHeader(format: .jpeg, detail: "no start-of-frame segment before the image data")
        }
        let reader = ByteReader(bytes)
        guard sof.payloadLength >= 6,
            let precision = try? reader.uint8(at: sof.payloadOffset),
            let height = try? reader.uint16(at: sof.payloadOffset + 1, .big),
            let width = try? reader.uint16(at: sof.payloadOffset + 3, .big),
            let components = try? reader.uint8(at: sof.payloadOffset + 5)
        else {
            throw .invalidHeader(
                format: .jpeg, detail: "start-of-frame segment is \(sof.payloadLength) bytes, too short")
        }
        guard width > 0, height > 0 else {
            throw .invalidDimensions(format: .jpeg, width: Int(width), height: Int(height))
        }
        guard [1, 3, 4].contains(components) else {
            throw .invalidHeader(format: .jpeg, detail: "\(components) colour components")
        }
        var notes: [String] = []
        switch sof.marker {
        case 0xC2, 0xC6, 0xCA, 0xCE: notes.append("progressive")
        case 0xC3, 0xC7, 0xCB, 0xCF: notes.append("lossless")
        default: break
        }
        if sof.marker >= 0xC9 { notes.append("arithmetic") }
        if precision != 8 { notes.append("\(precision)-bit") }
        if components == 4 { notes.append("CMYK") }
        if components == 1 { notes.append("grayscale") }
        var sniffed = SniffedType(
            format: .jpeg, width: Int(width), height: Int(height), frames: 1, hasAlpha: false,
            detail: notes.isEmpty ? nil : notes.joined(separator: ", "))
        sniffed.isProgressive = [0xC2, 0xC6, 0xCA, 0xCE].contains(sof.marker)
        return sniffed
    }
}
