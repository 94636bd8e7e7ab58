import MediaTypes

/// Reads the Orientation tag (0x0112) from a JPEG's APP1 `Exif\0\0` block.
///
///     let orientation = try ExifOrientation.read(jpeg: bytes)   // .up when there is no Exif
///     let upright = resizer.resize(image, to: box, orientation: orientation)
///
/// Both TIFF byte orders are handled. Every offset and count is checked against the block,
/// so a lying file throws an `ExifError` and never traps.
package enum ExifOrientation {
    static let exifHeader: [UInt8] = Array("Exif\0\0".utf8)
    static let orientationTag: UInt16 = 0x0112
    static let typeShort: UInt16 = 3

    /// The orientation of a JPEG file; `.up` when it has no Exif block, no orientation tag, or a
    /// tag value outside 1...8 (some cameras write 0 for "unknown").
    /// - Throws: `ExifError` when the markers or the Exif block are malformed.
    /// - Complexity: O(header markers); stops at the Exif block or the first scan.
    package static func read(jpeg bytes: [UInt8]) throws(ExifError) -> Orientation {
        let segments: [JPEGSegment]
        do {
            segments = try JPEGSegments.read(bytes) { isExif($0, in: bytes) }
        } catch {
            throw .jpeg(error)
        }
        guard let app1 = segments.last, isExif(app1, in: bytes) else { return .up }
        let tiffStart = app1.payloadOffset + exifHeader.count
        let tiff = ByteReader(Array(bytes[tiffStart..<app1.payloadRange.upperBound]))
        return try read(tiff: tiff, fileOffset: tiffStart)
    }

    /// The orientation in a TIFF-structured Exif block (the bytes after `Exif\0\0`).
    /// `fileOffset` only makes error messages point into the original file.
    package static func read(tiff bytes: [UInt8], fileOffset: Int = 0) throws(ExifError) -> Orientation {
        try read(tiff: ByteReader(bytes), fileOffset: fileOffset)
    }

    static func isExif(_ segment: JPEGSegment, in bytes: [UInt8]) -> Bool {
        guard segment.marker == 0xE1, segment.payloadLength >= exifHeader.count else { return false }
        return bytes[segment.payloadOffset..<(segment.payloadOffset + exifHeader.count)].elementsEqual(exifHeader)
    }

    static func read(tiff r: ByteReader, fileOffset base: Int) throws(ExifError) -> Orientation {
        let order = try TIFFField.uint16(r, at: 0, .big, "TIFF byte order")
        let endian: ByteReader.Endian
        switch order {
        case 0x4949: endian = .little
        case 0x4D4D: endian = .big
        default: throw .badByteOrder(offset: base, found: order)
        }
        let magic = try TIFFField.uint16(r, at: 2, endian, "TIFF magic")
        guard magic == 42 else { throw .badMagic(offset: base + 2, found: magic) }
        let ifd = Int(try TIFFField.uint32(r, at: 4, endian, "IFD0 offset"))

        let entries = Int(try TIFFField.uint16(r, at: ifd, endian, "IFD0 entry count"))
        // Check the whole table once, so a lying count fails before the loop starts.
        do { try r.require(entries * 12, at: ifd + 2) } catch {
            throw .outOfBounds(what: "IFD0 entries", offset: ifd + 2, wanted: entries * 12, blockLength: r.count)
        }
        for index in 0..<entries {
            let entry = ifd + 2 + index * 12
            guard try TIFFField.uint16(r, at: entry, endian, "IFD0 tag") == orientationTag else { continue }
            let type = try TIFFField.uint16(r, at: entry + 2, endian, "orientation type")
            let count = try TIFFField.uint32(r, at: entry + 4, endian, "orientation count")
            // One SHORT fits in the 4-byte value field; anything else is not an orientation.
            guard type == typeShort, count == 1 else {
                throw .badOrientationEntry(type: type, count: count, offset: base + entry)
            }
            // Values outside 1...8 (cameras write 0 for "unknown") mean no rotation, as in browsers.
            let value = try TIFFField.uint16(r, at: entry + 8, endian, "orientation value")
            return Orientation(rawValue: Int(value)) ?? .up
        }
        return .up
    }
}

/// Bounds-checked TIFF field reads that fail with an `ExifError` naming the field.
private enum TIFFField {
    static func uint16(_ r: ByteReader, at offset: Int, _ endian: ByteReader.Endian, _ what: String) throws(ExifError)
        -> UInt16
    {
        do { return try r.uint16(at: offset, endian) } catch {
            throw .outOfBounds(what: what, offset: offset, wanted: 2, blockLength: r.count)
        }
    }

    static func uint32(_ r: ByteReader, at offset: Int, _ endian: ByteReader.Endian, _ what: String) throws(ExifError)
        -> UInt32
    {
        do { return try r.uint32(at: offset, endian) } catch {
            throw .outOfBounds(what: what, offset: offset, wanted: 4, blockLength: r.count)
        }
    }
}
