import Foundation

/// Builds a valid PNG of an exact byte count by inserting a private ancillary chunk (`ppAd`,
/// which every decoder skips) after IHDR. For the 10,000,000-byte cap tests.
enum PNGPadding {
    static func padded(_ png: Data, toExactly total: Int) -> Data {
        let bytes = [UInt8](png)
        let ihdrEnd = 8 + 4 + 4 + 13 + 4  // signature, length, type, IHDR data, CRC
        let overhead = 12  // length + type + CRC of the padding chunk
        let fill = total - bytes.count - overhead
        precondition(fill >= 0, "PNG already larger than \(total)")
        var chunk = [UInt8]()
        chunk.reserveCapacity(fill + overhead)
        chunk += withUnsafeBytes(of: UInt32(fill).bigEndian, Array.init)
        let typeAndData = Array("ppAd".utf8) + [UInt8](repeating: 0x2E, count: fill)
        chunk += typeAndData
        chunk += withUnsafeBytes(of: CRC32.checksum(typeAndData).bigEndian, Array.init)
        return Data(bytes[..<ihdrEnd] + chunk + bytes[ihdrEnd...])
    }
}

/// CRC-32 (ISO 3309), as PNG chunks use.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
