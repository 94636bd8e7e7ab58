/// BMP: "BM", then a DIB header whose size names its version (12 for OS/2 1.x, 40+ for Windows).
///
///     try BMPHeader.sniff(bytes).width
enum BMPHeader {
    static let dibSizes: Set<UInt32> = [12, 16, 40, 52, 56, 64, 108, 124]

    /// The weak "BM" signature plus a known DIB header size; fewer than 18 bytes are not taken
    /// for a bitmap (short text starting "BM" is more likely).
    static func plausible(_ bytes: [UInt8]) -> Bool {
        guard let size = try? ByteReader(bytes).uint32(at: 14, .little) else { return false }
        return dibSizes.contains(size)
    }

    static func sniff(_ bytes: [UInt8]) throws(SniffError) -> SniffedType {
        let reader = ByteReader(bytes)
        guard let dib = try? reader.uint32(at: 14, .little) else {
            throw .truncated(format: .bmp, detail: "the file ends before the DIB header")
        }
        let width: Int, height: Int
        if dib == 12 {
            guard let w = try? reader.uint16(at: 18, .little), let h = try? reader.uint16(at: 20, .little) else {
                throw .truncated(format: .bmp, detail: "the OS/2 bitmap header is cut short")
            }
            (width, height) = (Int(w), Int(h))
        } else {
            guard let w = try? reader.uint32(at: 18, .little), let h = try? reader.uint32(at: 22, .little) else {
                throw .truncated(format: .bmp, detail: "the bitmap info header is cut short")
            }
            // Height is signed: negative means top-down rows.
            (width, height) = (Int(Int32(bitPattern: w)), abs(Int(Int32(bitPattern: h))))
        }
        guard width > 0, height > 0 else { throw .invalidDimensions(format: .bmp, width: width, height: height) }
        return SniffedType(format: .bmp, width: width, height: height, frames: 1)
    }
}
