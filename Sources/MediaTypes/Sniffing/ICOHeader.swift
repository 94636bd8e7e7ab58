/// ICO/CUR: a 6-byte directory header and 16-byte entries; the first entry gives the size
/// (a 0 byte means 256).
///
///     try ICOHeader.sniff(bytes).width  // 16
enum ICOHeader {
    /// At least one image, and the first entry's reserved byte zero, when the bytes reach it.
    static func plausible(_ bytes: [UInt8]) -> Bool {
        let reader = ByteReader(bytes)
        guard let count = try? reader.uint16(at: 4, .little) else { return bytes.count < 6 }
        guard count > 0 else { return false }
        guard let reserved = try? reader.uint8(at: 9) else { return true }
        return reserved == 0
    }

    static func sniff(_ bytes: [UInt8]) throws(SniffError) -> SniffedType {
        let reader = ByteReader(bytes)
        guard let count = try? reader.uint16(at: 4, .little), let w = try? reader.uint8(at: 6),
            let h = try? reader.uint8(at: 7)
        else { throw .truncated(format: .ico, detail: "the file ends inside the icon directory") }
        guard Int(count) * 16 + 6 <= bytes.count else {
            throw .truncated(format: .ico, detail: "the directory lists \(count) images, more than the file holds")
        }
        return SniffedType(
            format: .ico, width: w == 0 ? 256 : Int(w), height: h == 0 ? 256 : Int(h), frames: Int(count),
            detail: bytes[2] == 2 ? "CUR" : nil)
    }
}
