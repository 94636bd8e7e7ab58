/// GIF facts: the logical screen size, and the frame count found by walking the blocks
/// (extensions, image descriptors and their data sub-blocks) without decoding any LZW.
///
///     try GIFHeader.sniff(bytes).frames  // 23
enum GIFHeader {
    static func sniff(_ bytes: [UInt8]) throws(SniffError) -> SniffedType {
        let reader = ByteReader(bytes)
        guard let width = try? reader.uint16(at: 6, .little), let height = try? reader.uint16(at: 8, .little),
            let flags = try? reader.uint8(at: 10)
        else { throw .truncated(format: .gif, detail: "the file ends inside the logical screen descriptor") }
        guard width > 0, height > 0 else {
            throw .invalidDimensions(format: .gif, width: Int(width), height: Int(height))
        }
        var i = 13 + colorTableSize(flags)
        var frames = 0
        var hasAlpha = false
        walk: while true {
            guard let introducer = try? reader.uint8(at: i) else {
                // Many encoders omit the trailer; a stream that ends cleanly after a whole
                // image is shown by every decoder. Ending anywhere else is truncation.
                if i == bytes.count, frames > 0 { break walk }
                throw .truncated(
                    format: .gif,
                    detail: "the block stream ends at byte \(i) without a trailer, after \(frames) frame(s)")
            }
            switch introducer {
            case 0x3B:
                break walk
            case 0x21:
                guard let label = try? reader.uint8(at: i + 1) else {
                    throw .truncated(format: .gif, detail: "an extension block is cut short at byte \(i)")
                }
                if label == 0xF9, let size = try? reader.uint8(at: i + 2), size >= 4,
                    let packed = try? reader.uint8(at: i + 3), packed & 0x01 != 0
                {
                    hasAlpha = true
                }
                i = try skipSubBlocks(reader, from: i + 2)
            case 0x2C:
                guard let packed = try? reader.uint8(at: i + 9) else {
                    throw .truncated(format: .gif, detail: "an image descriptor is cut short at byte \(i)")
                }
                frames += 1
                // Descriptor (10 bytes), local colour table, LZW minimum code size byte.
                i = try skipSubBlocks(reader, from: i + 10 + colorTableSize(packed) + 1)
            default:
                throw .invalidHeader(
                    format: .gif, detail: "unexpected block introducer 0x\(String(introducer, radix: 16)) at byte \(i)")
            }
        }
        guard frames > 0 else { throw .invalidHeader(format: .gif, detail: "no image in the file") }
        return SniffedType(
            format: .gif, width: Int(width), height: Int(height), frames: frames, hasAlpha: hasAlpha,
            isAnimated: frames > 1, detail: bytes[4] == 0x37 ? "87a" : "89a")
    }

    private static func colorTableSize(_ packed: UInt8) -> Int {
        packed & 0x80 != 0 ? 3 << (Int(packed & 0x07) + 1) : 0
    }

    /// Offset just past the zero-length terminator of the sub-block chain at `start`.
    private static func skipSubBlocks(_ reader: ByteReader, from start: Int) throws(SniffError) -> Int {
        var i = start
        while true {
            guard let size = try? reader.uint8(at: i) else {
                throw .truncated(format: .gif, detail: "a data sub-block chain runs past the end at byte \(i)")
            }
            i += 1 + Int(size)
            if size == 0 { return i }
        }
    }
}
