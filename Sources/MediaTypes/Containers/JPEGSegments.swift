/// The marker segments of a JPEG up to the first scan, walked without decoding anything.
/// Shared by the sniffer (SOF dimensions), the codec layer (APP2 ICC profile chunks) and the
/// engine (APP1 Exif orientation), so there is one bounds-checked walker.
///
///     for segment in try JPEGSegments.read(bytes) where segment.marker == 0xE1 { ... }
package struct JPEGSegment: Sendable, Hashable {
    /// The marker byte after 0xFF, e.g. 0xE1 for APP1, 0xC0 for SOF0.
    package let marker: UInt8
    /// Offset of the first payload byte (after the two length bytes) in the file.
    package let payloadOffset: Int
    /// Payload length, excluding the two length bytes.
    package let payloadLength: Int

    /// The payload's byte range in the file: `payloadOffset ..< payloadOffset + payloadLength`.
    package var payloadRange: Range<Int> { payloadOffset..<(payloadOffset + payloadLength) }

    /// Start-of-frame markers: SOF0...SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    package var isStartOfFrame: Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }
}

/// The bounds-checked walker over a JPEG's marker segments. Users of the library meet it only
/// through ``Failure``, carried by the image engine's Exif error when the marker structure of
/// a JPEG is broken; the walk itself is a package-internal helper.
public enum JPEGSegments {
    /// Why the marker segments of a JPEG could not be walked. Offsets are byte positions from
    /// the start of the file.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The bytes do not start with the start-of-image marker `FF D8`.
        case notJPEG
        /// The file ends inside the marker segments, before the first scan; `at` is the byte
        /// offset where more data was needed.
        case truncated(at: Int)
        /// A marker (`FF` followed by a marker byte) was expected at `offset`, but `byte` was found.
        case badMarker(offset: Int, byte: UInt8)
        /// The segment whose marker starts at `offset` declares a `length` shorter than its own
        /// two length bytes or longer than the file.
        case badLength(offset: Int, length: Int)

        /// A one-line explanation naming the offset, e.g. "JPEG header truncated at byte 612".
        public var description: String {
            switch self {
            case .notJPEG: "no JPEG start-of-image marker (FF D8)"
            case .truncated(let at): "JPEG header truncated at byte \(at)"
            case .badMarker(let offset, let byte):
                "expected a JPEG marker at byte \(offset), found 0x\(String(byte, radix: 16))"
            case .badLength(let offset, let length): "JPEG segment at byte \(offset) has impossible length \(length)"
            }
        }
    }

    /// Segments from SOI up to and including SOS (or EOI). Stops early once `stopAfter`
    /// returns true for a segment, so callers read only what they need.
    ///
    /// With `skippingExtraneousBytes`, bytes that are not a marker (and stuffed `FF 00` pairs)
    /// between segments are skipped up to the next marker, as libjpeg does with its "Corrupt
    /// JPEG data: N extraneous bytes before marker" warning.
    package static func read(
        _ bytes: [UInt8], skippingExtraneousBytes: Bool = false, stopAfter: (JPEGSegment) -> Bool = { _ in false }
    ) throws(Failure) -> [JPEGSegment] {
        try walk(bytes, skippingExtraneousBytes: skippingExtraneousBytes, stopAfter: stopAfter)
    }

    /// `read` over bytes read in place (a decoder's view of a file it must not copy).
    package static func read(
        _ bytes: UnsafeRawBufferPointer, skippingExtraneousBytes: Bool = false,
        stopAfter: (JPEGSegment) -> Bool = { _ in false }
    ) throws(Failure) -> [JPEGSegment] {
        try walk(bytes, skippingExtraneousBytes: skippingExtraneousBytes, stopAfter: stopAfter)
    }

    /// The walk behind both `read`s; `bytes` is indexed from 0.
    private static func walk<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, skippingExtraneousBytes: Bool, stopAfter: (JPEGSegment) -> Bool
    ) throws(Failure) -> [JPEGSegment] where Bytes.Index == Int {
        guard bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw .notJPEG }
        var segments: [JPEGSegment] = []
        var i = 2
        while true {
            // Skip fill bytes (any number of 0xFF before a marker is legal).
            guard i < bytes.count else { throw .truncated(at: i) }
            if skippingExtraneousBytes {
                // Next FF followed by a byte that is neither fill (FF) nor stuffing (00).
                while i < bytes.count, bytes[i] != 0xFF || (i + 1 < bytes.count && bytes[i + 1] == 0x00) { i += 1 }
                guard i < bytes.count else { throw .truncated(at: i) }
            }
            guard bytes[i] == 0xFF else { throw .badMarker(offset: i, byte: bytes[i]) }
            while i < bytes.count, bytes[i] == 0xFF { i += 1 }
            guard i < bytes.count else { throw .truncated(at: i) }
            let marker = bytes[i]
            i += 1
            if marker == 0x00 { throw .badMarker(offset: i - 1, byte: 0) }
            // Standalone markers carry no length.
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
            if marker == 0xD9 {
                segments.append(JPEGSegment(marker: marker, payloadOffset: i, payloadLength: 0))
                return segments
            }
            guard i + 2 <= bytes.count else { throw .truncated(at: i) }
            let length = Int(bytes[i]) << 8 | Int(bytes[i + 1])
            guard length >= 2 else { throw .badLength(offset: i, length: length) }
            guard i + length <= bytes.count else { throw .truncated(at: i) }
            let segment = JPEGSegment(marker: marker, payloadOffset: i + 2, payloadLength: length - 2)
            segments.append(segment)
            i += length
            if marker == 0xDA || stopAfter(segment) { return segments }
        }
    }
}
