internal import CDeflate

/// A bounds- and CRC-checked walk over PNG chunks, done in Swift before libpng sees the
/// bytes. libpng rejects all of PngSuite's `x*` files by itself, but the row decoder stops
/// after the last image row, so it would accept a file cut anywhere after it (no IEND needed);
/// this walk requires IEND, checks critical-chunk CRCs (so libpng need not) and collects
/// iCCP, eXIf, XMP and acTL. A file cut inside or after its image data (an IDAT chunk has
/// begun) is not refused here: `truncation` says where, and the row decoder reports it as
/// damage with the rows that are there. A cut before any IDAT is still an error.
///
///     let chunks = try data.withUnsafeBytes { try PNGChunks($0) { w, h throws(CodecError) in ... } }
///     chunks.width; chunks.iccpData; chunks.animationFrames
struct PNGChunks: Sendable {
    /// Errors found by this walk name it rather than libpng, which never saw the bytes.
    static let name = "png-chunks"
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

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
    /// Where the file ends early, when it ends inside or after its image data (before IEND).
    var truncation: String?

    /// Walks every chunk of `bytes` up to IEND, reading them in place. `sizeCheck` runs right
    /// after IHDR, before the rest of the file is read, so a pixel-budget refusal wins over
    /// later damage.
    ///
    /// - Complexity: O(n) in the file size (one CRC pass); copies only iCCP, eXIf and XMP.
    init(_ bytes: UnsafeRawBufferPointer, sizeCheck: (Int, Int) throws(CodecError) -> Void) throws(CodecError) {
        guard bytes.count >= 8, bytes.prefix(8).elementsEqual(Self.signature) else {
            throw Self.fail("not a PNG file (bad signature)")
        }
        var offset = 8
        var index = 0
        var sawIDAT = false
        while true {
            guard bytes.count - offset >= 8 else {
                guard sawIDAT else { throw Self.fail("file truncated before IEND (at byte \(offset))") }
                truncation = "file truncated before IEND (at byte \(offset))"
                break
            }
            let length = Self.u32(bytes, offset)
            let typeBytes = bytes[(offset + 4)..<(offset + 8)]
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw Self.fail("invalid chunk type at byte \(offset + 4)")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard length <= 0x7FFF_FFFF else { throw Self.fail("chunk \(type) has an impossible length \(length)") }
            guard bytes.count - offset - 12 >= length else {
                guard sawIDAT || type == "IDAT" else { throw Self.fail("file truncated inside the \(type) chunk") }
                sawIDAT = true
                truncation =
                    "file truncated inside the \(type) chunk at byte \(offset) (the chunk ends at byte \(offset + 12 + length), the file at \(bytes.count))"
                break
            }
            let dataStart = offset + 8
            let crcStart = dataStart + length
            let stored = UInt32(Self.u32(bytes, crcStart))
            let crcOK = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<crcStart])) == stored
            let isCritical = typeBytes.first! & 0x20 == 0
            if !crcOK && isCritical { throw Self.fail("CRC error in the \(type) chunk") }
            if index == 0 {
                guard type == "IHDR", length == 13 else { throw Self.fail("IHDR is not the first chunk") }
                try readIHDR(bytes, at: dataStart, sizeCheck: sizeCheck)
            } else if crcOK {
                collect(type, bytes, data: dataStart..<crcStart, sawIDAT: &sawIDAT)
            }
            index += 1
            offset = crcStart + 4
            if type == "IEND" { break }
        }
        guard sawIDAT else { throw Self.fail("no IDAT chunk: the file has no image data") }
    }

    private static func fail(_ message: String) -> CodecError { .corrupt(codec: PNGChunks.name, message: message) }

    /// The big-endian 32-bit number at `at`.
    private static func u32(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> Int {
        Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }

    /// IHDR's size, checked, then `sizeCheck`'s verdict on it.
    private mutating func readIHDR(
        _ bytes: UnsafeRawBufferPointer, at dataStart: Int, sizeCheck: (Int, Int) throws(CodecError) -> Void
    ) throws(CodecError) {
        width = Self.u32(bytes, dataStart)
        height = Self.u32(bytes, dataStart + 4)
        guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
            throw Self.fail("IHDR gives an impossible size \(width)x\(height)")
        }
        try sizeCheck(width, height)
    }

    /// Keeps what a chunk with a good CRC says: IDAT seen, iCCP (before the image data), eXIf,
    /// XMP (the first of each), acTL's frame count.
    private mutating func collect(_ type: String, _ bytes: UnsafeRawBufferPointer, data: Range<Int>, sawIDAT: inout Bool) {
        switch type {
        case "IDAT": sawIDAT = true
        case "iCCP" where iccpData == nil && !sawIDAT: iccpData = Array(bytes[data])
        case "eXIf" where exif == nil: exif = Array(bytes[data])
        case "iTXt" where xmpData == nil && bytes[data].starts(with: Self.xmpKeyword): xmpData = Array(bytes[data])
        case "acTL" where data.count == 8: animationFrames = max(1, Self.u32(bytes, data.lowerBound))
        default: break
        }
    }

    /// `init(_:sizeCheck:)` over an array (tests, small inputs).
    init(_ bytes: [UInt8], sizeCheck: (Int, Int) throws(CodecError) -> Void) throws(CodecError) {
        let walked = bytes.withUnsafeBytes { raw in
            Result { () throws(CodecError) -> PNGChunks in try PNGChunks(raw, sizeCheck: sizeCheck) }
        }
        self = try walked.get()
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

/// CRC-32 (ISO 3309, as PNG uses it), libdeflate's (carry-less multiplication where the CPU has
/// it: the chunk walk checks the whole file with it).
enum CRC32 {
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    /// The CRC of `bytes`, read in place (the chunk walk's hot loop).
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        libdeflate_crc32(0, bytes.baseAddress, bytes.count)
    }
}
