import Foundation
import MediaTypes

extension JPEGCodec {
    /// Decodes to `.gray` (greyscale JPEGs) or `.rgb` (everything else; CMYK and YCCK are
    /// converted to sRGB through their ICC profile, or through `DefaultCMYKProfile` when they
    /// have no usable one, see `JPEGRowDecoder`): every row of `JPEGRowDecoder` in one buffer.
    ///
    ///     let image = try JPEGCodec.decode(data, options: DecodeOptions(strict: true))
    ///
    /// The header size is checked against `options.pixelBudget` before pixels are allocated.
    /// Always decodes with the accurate integer IDCT; progressive files with more than 500
    /// scans are refused (a known denial-of-service shape). `data` is read in place.
    public static func decode(_ data: Data, options: DecodeOptions) throws(CodecError) -> DecodedImage {
        try reading(data) { bytes throws(CodecError) in try decode(bytes, options: options) }
    }

    /// `decode(_:options:)` from bytes the caller already holds as `[UInt8]` (no copy).
    package static func decode(bytes: [UInt8], options: DecodeOptions) throws(CodecError) -> DecodedImage {
        try reading(bytes) { raw throws(CodecError) in try decode(raw, options: options) }
    }

    /// `decode(_:options:)` over bytes read in place (a mapped or spooled file, a `Data`'s storage).
    package static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions) throws(CodecError)
        -> DecodedImage
    {
        let rows = try JPEGRowDecoder(bytes, options: options)
        let pixels = try rows.readAll()
        return DecodedImage(
            pixels: pixels, sourceWidth: rows.sourceWidth, sourceHeight: rows.sourceHeight,
            iccProfile: rows.iccProfile, warnings: rows.warnings, damage: rows.damage, notes: rows.notes)
    }

    /// True when an EOI marker (FF D9) follows the first scan header. The header segments are
    /// walked (an Exif thumbnail in APP1 has an EOI of its own); inside entropy-coded data 0xFF
    /// is always followed by 0x00 or a restart marker, so FF D9 there is the real end.
    static func hasEndOfImage(_ bytes: [UInt8]) -> Bool {
        guard let segments = try? JPEGSegments.read(bytes, skippingExtraneousBytes: true),
            let scan = segments.last, scan.marker == 0xDA
        else { return false }
        return bytes.withUnsafeBytes { hasEndOfImage($0, from: scan.payloadRange.upperBound) }
    }

    /// True when FF D9 occurs at or after `offset`, which must lie past the header segments
    /// (in or after entropy-coded data, where FF D9 can only be the end marker).
    static func hasEndOfImage(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> Bool {
        guard let base = bytes.baseAddress, offset >= 0, offset + 1 < bytes.count else { return false }
        var i = offset
        while i + 1 < bytes.count {
            // memchr finds the next 0xFF much faster than a byte loop over megabytes of scans.
            guard let hit = memchr(base + i, 0xFF, bytes.count - 1 - i) else { return false }
            i = base.distance(to: UnsafeRawPointer(hit))
            if bytes[i + 1] == 0xD9 { return true }
            i += 1
        }
        return false
    }
}
