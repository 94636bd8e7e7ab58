/// PNG facts from IHDR and the chunks before the first IDAT (`acTL` for APNG, `tRNS` for alpha).
///
///     try PNGHeader.sniff(bytes).frames  // 20 for an APNG with num_frames 20
///
/// Every IHDR field is checked (PNG spec 11.2.2): width and height 1...2^31-1, a bit depth the
/// colour type allows, compression method 0, filter method 0, interlace method 0 or 1.
/// Chunks are walked by their lengths only (CRCs are the decoder's business); the walk stops at
/// the first IDAT, so the image data is never read. An IDAT that runs past the end of the file
/// is not a header problem: the header is whole, and the decoder reports the cut image data as
/// damage (with the rows that are there), as for a JPEG cut inside its scan.
/// Chunk names in messages are escaped (`ByteReader.displayText`): they are bytes from outside.
enum PNGHeader {
    static let maxDimension = Int(Int32.max)
    /// Bit depths per colour type: greyscale, RGB, palette, greyscale with alpha, RGBA.
    static let allowedDepths: [UInt8: [UInt8]] = [
        0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16],
    ]

    static func sniff(_ bytes: [UInt8]) throws(SniffError) -> SniffedType {
        let reader = ByteReader(bytes)
        let ihdr = try readIHDR(reader)
        let chunks = try walkChunks(reader, from: 8 + 12 + 13, count: bytes.count)
        let hasAlpha = ihdr.colorType == 4 || ihdr.colorType == 6 || chunks.hasTRNS
        var sniffed = SniffedType(
            format: .png, width: ihdr.width, height: ihdr.height, frames: chunks.frames, hasAlpha: hasAlpha,
            isAnimated: chunks.isAPNG && chunks.frames > 1,
            detail: chunks.isAPNG ? "APNG" : chunks.invalidAnimation ? "invalid acTL ignored" : nil)
        sniffed.isProgressive = ihdr.interlaced
        return sniffed
    }

    /// The IHDR chunk, every field checked.
    private static func readIHDR(_ reader: ByteReader) throws(SniffError)
        -> (width: Int, height: Int, colorType: UInt8, interlaced: Bool)
    {
        guard let ihdrLength = try? reader.uint32(at: 8, .big), let ihdrType = try? reader.ascii(at: 12, count: 4)
        else {
            throw .truncated(format: .png, detail: "the file ends before the IHDR chunk")
        }
        guard ihdrType == "IHDR", ihdrLength == 13 else {
            throw .invalidHeader(
                format: .png,
                detail:
                    "first chunk is '\(reader.displayText(at: 12, count: 4))' of \(ihdrLength) bytes, expected a 13-byte IHDR"
            )
        }
        guard let w = try? reader.uint32(at: 16, .big), let h = try? reader.uint32(at: 20, .big),
            let depth = try? reader.uint8(at: 24), let colorType = try? reader.uint8(at: 25),
            let compression = try? reader.uint8(at: 26), let filter = try? reader.uint8(at: 27),
            let interlace = try? reader.uint8(at: 28)
        else { throw .truncated(format: .png, detail: "the IHDR chunk is cut short") }
        guard w > 0, h > 0, w <= maxDimension, h <= maxDimension else {
            throw .invalidDimensions(format: .png, width: Int(w), height: Int(h))
        }
        guard let depths = allowedDepths[colorType], depths.contains(depth) else {
            throw .invalidHeader(format: .png, detail: "colour type \(colorType) with bit depth \(depth)")
        }
        guard compression == 0 else {
            throw .invalidHeader(format: .png, detail: "compression method \(compression), only 0 (deflate) exists")
        }
        guard filter == 0 else {
            throw .invalidHeader(format: .png, detail: "filter method \(filter), only 0 (adaptive) exists")
        }
        guard interlace <= 1 else {
            throw .invalidHeader(
                format: .png, detail: "interlace method \(interlace), only 0 (none) and 1 (Adam7) exist")
        }
        return (Int(w), Int(h), colorType, interlace == 1)
    }

    /// What the chunks between IHDR and the first IDAT say: `tRNS`, and `acTL`'s frame count.
    private struct Chunks {
        var hasTRNS = false
        var frames = 1
        var isAPNG = false
        var invalidAnimation = false
    }

    /// Walks the chunks from byte `start` by their lengths, up to the first IDAT (or IEND).
    private static func walkChunks(_ reader: ByteReader, from start: Int, count: Int) throws(SniffError) -> Chunks {
        var chunks = Chunks()
        var i = start
        while true {
            guard let length = try? reader.uint32(at: i, .big), let type = try? reader.ascii(at: i + 4, count: 4) else {
                throw .truncated(format: .png, detail: "the file ends at byte \(i), before any IDAT chunk")
            }
            guard length <= Int32.max else {
                throw .invalidHeader(
                    format: .png,
                    detail: "chunk '\(reader.displayText(at: i + 4, count: 4))' at byte \(i) claims \(length) bytes")
            }
            let end = i + 12 + Int(length)
            if type == "IDAT" || type == "IEND" { return chunks }
            guard end <= count else {
                throw .truncated(
                    format: .png,
                    detail:
                        "chunk '\(reader.displayText(at: i + 4, count: 4))' at byte \(i) claims \(length) bytes, past the end"
                )
            }
            switch type {
            case "tRNS": chunks.hasTRNS = true
            case "acTL":
                guard length >= 8, let n = try? reader.uint32(at: i + 8, .big) else {
                    throw .invalidHeader(format: .png, detail: "acTL chunk is \(length) bytes, expected 8")
                }
                // An impossible frame count (0 or over 2^31-1) makes the animation invalid; the
                // default image is still a valid PNG, so it is read as a still image.
                if n > 0, n <= Int32.max {
                    chunks.frames = Int(n)
                    chunks.isAPNG = true
                } else {
                    chunks.invalidAnimation = true
                }
            default: break
            }
            i = end
        }
    }
}
