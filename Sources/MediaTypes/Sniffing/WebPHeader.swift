/// WebP facts from the RIFF chunks: VP8 (lossy), VP8L (lossless, alpha bit) or VP8X (extended:
/// alpha and animation flags, canvas size, frames counted as `ANMF` chunks).
///
///     try WebPHeader.sniff(bytes).detail  // "VP8L"
///
/// The RIFF header states the file size, so a file shorter than it says is reported truncated.
/// Chunk names in messages are escaped (`ByteReader.displayText`): they are bytes from outside.
enum WebPHeader {
    /// libwebp's largest width or height.
    static let maxDimension = 16383

    static func sniff(_ bytes: [UInt8]) throws(SniffError) -> SniffedType {
        let reader = ByteReader(bytes)
        guard let riffSize = try? reader.uint32(at: 4, .little), let type = try? reader.ascii(at: 12, count: 4),
            let length = try? reader.uint32(at: 16, .little)
        else { throw .truncated(format: .webp, detail: "the file ends before the first chunk header") }
        guard Int(riffSize) + 8 <= bytes.count else {
            throw .truncated(
                format: .webp, detail: "RIFF header says \(Int(riffSize) + 8) bytes, the file has \(bytes.count)")
        }
        let payload = 20
        switch type {
        case "VP8 ":
            guard length >= 10, let tag = try? reader.uint24(at: payload, .little),
                reader.matches([0x9D, 0x01, 0x2A], at: payload + 3),
                let w = try? reader.uint16(at: payload + 6, .little),
                let h = try? reader.uint16(at: payload + 8, .little)
            else { throw .invalidHeader(format: .webp, detail: "VP8 chunk has no key-frame start code") }
            guard tag & 1 == 0 else {
                throw .invalidHeader(format: .webp, detail: "first VP8 frame is not a key frame")
            }
            return try still(Int(w & 0x3FFF), Int(h & 0x3FFF), alpha: false, detail: "VP8")
        case "VP8L":
            guard length >= 5, reader.matches([0x2F], at: payload),
                let bits = try? reader.uint32(at: payload + 1, .little)
            else {
                throw .invalidHeader(format: .webp, detail: "VP8L chunk has no 0x2F signature")
            }
            guard bits >> 29 == 0 else { throw .invalidHeader(format: .webp, detail: "VP8L version \(bits >> 29)") }
            let w = Int(bits & 0x3FFF) + 1, h = Int((bits >> 14) & 0x3FFF) + 1
            return try still(w, h, alpha: bits & (1 << 28) != 0, detail: "VP8L")
        case "VP8X":
            guard length >= 10, let flags = try? reader.uint8(at: payload),
                let w = try? reader.uint24(at: payload + 4, .little),
                let h = try? reader.uint24(at: payload + 7, .little)
            else { throw .invalidHeader(format: .webp, detail: "VP8X chunk is \(length) bytes, expected 10") }
            let width = Int(w) + 1, height = Int(h) + 1
            guard width <= maxDimension, height <= maxDimension else {
                throw .invalidDimensions(format: .webp, width: width, height: height)
            }
            let animated = flags & 0x02 != 0
            let frames = animated ? try countFrames(reader, riffEnd: Int(riffSize) + 8) : 1
            return SniffedType(
                format: .webp, width: width, height: height, frames: frames, hasAlpha: flags & 0x10 != 0,
                isAnimated: animated && frames > 1, detail: "VP8X")
        default:
            throw .invalidHeader(
                format: .webp,
                detail: "first chunk is '\(reader.displayText(at: 12, count: 4))', expected VP8, VP8L or VP8X")
        }
    }

    private static func still(_ w: Int, _ h: Int, alpha: Bool, detail: String) throws(SniffError) -> SniffedType {
        guard w > 0, h > 0 else { throw .invalidDimensions(format: .webp, width: w, height: h) }
        return SniffedType(format: .webp, width: w, height: h, frames: 1, hasAlpha: alpha, detail: detail)
    }

    /// Counts `ANMF` chunks, walking every chunk after the RIFF header.
    private static func countFrames(_ reader: ByteReader, riffEnd: Int) throws(SniffError) -> Int {
        var i = 12
        var frames = 0
        let end = min(riffEnd, reader.count)
        while i + 8 <= end {
            guard let type = try? reader.ascii(at: i, count: 4), let length = try? reader.uint32(at: i + 4, .little)
            else { break }
            let next = i + 8 + Int(length) + Int(length & 1)
            guard i + 8 + Int(length) <= end else {
                throw .truncated(
                    format: .webp,
                    detail:
                        "chunk '\(reader.displayText(at: i, count: 4))' at byte \(i) claims \(length) bytes, past the end"
                )
            }
            if type == "ANMF" { frames += 1 }
            i = next
        }
        guard frames > 0 else { throw .invalidHeader(format: .webp, detail: "animation flag set but no ANMF frame") }
        return frames
    }
}
