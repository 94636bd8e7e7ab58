/// TIFF facts: byte order and the first image's size from IFD0's ImageWidth (256) and
/// ImageLength (257) tags. A size that cannot be read is left `nil`; only zero sizes throw.
///
///     try TIFFHeader.sniff(bytes).width
enum TIFFHeader {
    static func sniff(_ bytes: [UInt8]) throws(SniffError) -> SniffedType {
        let endian: ByteReader.Endian = bytes.first == 0x49 ? .little : .big
        var result = SniffedType(format: .tiff, frames: 1, detail: endian == .little ? "little-endian" : "big-endian")
        let reader = ByteReader(bytes)
        guard let ifd = try? reader.uint32(at: 4, endian), let count = try? reader.uint16(at: Int(ifd), endian) else {
            return result
        }
        var width: Int?, height: Int?
        for k in 0..<Int(min(count, 512)) {
            let entry = Int(ifd) + 2 + k * 12
            guard let tag = try? reader.uint16(at: entry, endian), let type = try? reader.uint16(at: entry + 2, endian)
            else { break }
            guard tag == 256 || tag == 257 else { continue }
            let value: Int?
            switch type {
            case 3: value = (try? reader.uint16(at: entry + 8, endian)).map(Int.init)
            case 4: value = (try? reader.uint32(at: entry + 8, endian)).map(Int.init)
            default: value = nil
            }
            if tag == 256 { width = value } else { height = value }
        }
        if let width, let height {
            guard width > 0, height > 0 else { throw .invalidDimensions(format: .tiff, width: width, height: height) }
            result.width = width
            result.height = height
        }
        return result
    }
}
