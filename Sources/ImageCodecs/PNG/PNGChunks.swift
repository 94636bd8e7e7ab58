/// A bounds- and CRC-checked walk over PNG chunks, done in Swift before libpng sees the
/// bytes. libpng's simplified API rejects all of PngSuite's `x*` files by itself, but it
/// accepts a file cut anywhere after the last image row (no IEND needed) and never exposes
/// iCCP; this walk requires IEND, checks critical-chunk CRCs and collects iCCP and acTL.
///
///     let chunks = try PNGChunks(bytes, budget: 50_000_000)
///     chunks.width; chunks.iccpData; chunks.animationFrames
struct PNGChunks: Sendable {
    /// Errors found by this walk name it rather than libpng, which never saw the bytes.
    static let name = "png-chunks"
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    struct Failure: Error { let message: String }

    var width = 0
    var height = 0
    /// The iCCP chunk's data (profile name, 0, method, zlib stream), when its CRC is good.
    var iccpData: [UInt8]?
    /// acTL's frame count for APNG, else 1.
    var animationFrames = 1
    /// The eXIf chunk's data (a TIFF structure), when its CRC is good.
    var exif: [UInt8]?
    /// The iTXt chunk with keyword "XML:com.adobe.xmp" (keyword, flags, language, translated
    /// keyword, then the possibly compressed text), when its CRC is good.
    var xmpData: [UInt8]?

    /// Walks every chunk up to IEND. `sizeCheck` runs right after IHDR, before the rest of the
    /// file is read, so a pixel-budget refusal wins over later damage.
    init(_ bytes: [UInt8], sizeCheck: (Int, Int) throws(CodecError) -> Void) throws(CodecError) {
        func fail(_ message: String) -> CodecError { .corrupt(codec: PNGChunks.name, message: message) }
        guard bytes.count >= 8, Array(bytes[0..<8]) == Self.signature else {
            throw fail("not a PNG file (bad signature)")
        }
        var offset = 8
        var index = 0
        var sawIDAT = false
        while true {
            guard bytes.count - offset >= 8 else { throw fail("file truncated before IEND (at byte \(offset))") }
            let length =
                Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
            let typeBytes = bytes[(offset + 4)..<(offset + 8)]
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw fail("invalid chunk type at byte \(offset + 4)")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard length <= 0x7FFF_FFFF else { throw fail("chunk \(type) has an impossible length \(length)") }
            guard bytes.count - offset - 12 >= length else { throw fail("file truncated inside the \(type) chunk") }
            let dataStart = offset + 8
            let crcStart = dataStart + length
            let stored =
                UInt32(bytes[crcStart]) << 24 | UInt32(bytes[crcStart + 1]) << 16 | UInt32(bytes[crcStart + 2]) << 8
                | UInt32(bytes[crcStart + 3])
            let crcOK = CRC32.checksum(bytes[(offset + 4)..<crcStart]) == stored
            let isCritical = typeBytes.first! & 0x20 == 0
            if !crcOK && isCritical { throw fail("CRC error in the \(type) chunk") }

            if index == 0 {
                guard type == "IHDR", length == 13 else { throw fail("IHDR is not the first chunk") }
                width =
                    Int(bytes[dataStart]) << 24 | Int(bytes[dataStart + 1]) << 16 | Int(bytes[dataStart + 2]) << 8
                    | Int(bytes[dataStart + 3])
                height =
                    Int(bytes[dataStart + 4]) << 24 | Int(bytes[dataStart + 5]) << 16 | Int(bytes[dataStart + 6]) << 8
                    | Int(bytes[dataStart + 7])
                guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
                    throw fail("IHDR gives an impossible size \(width)x\(height)")
                }
                try sizeCheck(width, height)
            } else if crcOK {
                switch type {
                case "IDAT": sawIDAT = true
                case "iCCP" where iccpData == nil && !sawIDAT: iccpData = Array(bytes[dataStart..<crcStart])
                case "eXIf" where exif == nil: exif = Array(bytes[dataStart..<crcStart])
                case "iTXt" where xmpData == nil && bytes[dataStart..<crcStart].starts(with: Self.xmpKeyword):
                    xmpData = Array(bytes[dataStart..<crcStart])
                case "acTL" where length == 8:
                    animationFrames = max(
                        1,
                        Int(bytes[dataStart]) << 24 | Int(bytes[dataStart + 1]) << 16 | Int(bytes[dataStart + 2]) << 8
                            | Int(bytes[dataStart + 3]))
                default: break
                }
            }
            index += 1
            offset = crcStart + 4
            if type == "IEND" { break }
        }
        guard sawIDAT else { throw fail("no IDAT chunk: the file has no image data") }
    }

    static let xmpKeyword: [UInt8] = Array("XML:com.adobe.xmp\0".utf8)

    /// A complete chunk (length, type, data, CRC).
    static func chunk(type: String, data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 12)
        let n = UInt32(data.count)
        out += [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
        out += typeBytes
        out += data
        let crc = CRC32.checksum((typeBytes + data)[...])
        out += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        return out
    }
}

/// CRC-32 (ISO 3309, as PNG uses it).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { t in
            for b in bytes { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        }
        return c ^ 0xFFFF_FFFF
    }
}
