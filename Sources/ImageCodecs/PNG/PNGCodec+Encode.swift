internal import CPNG
import Foundation

extension PNGCodec {
    /// Encodes 8-bit grey, RGB or RGBA pixels losslessly.
    ///
    ///     let png = try PNGCodec.encode(pixels, compression: .fast, iccProfile: profile)
    ///
    /// - Parameters:
    ///   - compression: libpng's simplified write API has no level setting; `.fast` sets
    ///     `PNG_IMAGE_FLAG_FAST` (faster, larger files).
    ///   - iccProfile: raw ICC bytes, written as an iCCP chunk right after IHDR (the zlib
    ///     stream uses stored blocks, so no zlib dependency); the sRGB chunk is then omitted.
    public static func encode(
        _ pixels: PixelBuffer, compression: PNGCompression = .default, iccProfile: [UInt8]? = nil
    ) throws(CodecError) -> Data {
        try Limits.checkEncodable(pixels, maxSide: 1_000_000)
        let image = PNGImageHandle()
        image.pointer.pointee.width = UInt32(pixels.width)
        image.pointer.pointee.height = UInt32(pixels.height)
        image.pointer.pointee.format =
            switch pixels.layout {
            case .gray: UInt32(PNG_FORMAT_GRAY)
            case .rgb: UInt32(PNG_FORMAT_RGB)
            case .rgba: UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
            }
        let hasProfile = !(iccProfile ?? []).isEmpty
        var flags: UInt32 = 0
        if compression == .fast { flags |= UInt32(PNG_IMAGE_FLAG_FAST) }
        if hasProfile { flags |= UInt32(PNG_IMAGE_FLAG_COLORSPACE_NOT_sRGB) }
        image.pointer.pointee.flags = flags

        let stride = Int32(pixels.stride)
        // One write into a buffer no PNG of these pixels can outgrow: deflate adds at most 5
        // bytes per 16 KB stored block, libpng 12 per 8 KB IDAT chunk, plus the filter byte of
        // each row and the header chunks. (Asking libpng for the size first, with a nil buffer,
        // runs the whole compression twice: it was half the time of a 2048 x 2048 encode.) The
        // buffer is left uninitialised, so only the pages written become resident.
        let raw = (pixels.width * pixels.layout.channels + 1) * pixels.height
        var size = raw + raw / 256 + 4096
        var encoded = [UInt8](unsafeUninitializedCapacity: size) { _, count in count = size }
        var written = encoded.withUnsafeMutableBufferPointer { output in
            pixels.withUnsafeBytes { source in
                png_image_write_to_memory(image.pointer, output.baseAddress, &size, 0, source.baseAddress, stride, nil)
            }
        }
        if written == 0, size > encoded.count {
            // Not expected (the bound holds for libpng 1.6's writer), but libpng says what it needs.
            image.pointer.pointee.warning_or_error = 0
            encoded = [UInt8](repeating: 0, count: size)
            written = encoded.withUnsafeMutableBufferPointer { output in
                pixels.withUnsafeBytes { source in
                    png_image_write_to_memory(
                        image.pointer, output.baseAddress, &size, 0, source.baseAddress, stride, nil)
                }
            }
        }
        guard written != 0 else { throw .encodeFailed(codec: name, message: image.message) }
        encoded.removeLast(encoded.count - min(size, encoded.count))

        if let iccProfile, hasProfile {
            // Signature (8) + IHDR chunk (25): iCCP must come before PLTE and IDAT.
            let chunk = PNGChunks.chunk(
                type: "iCCP", data: Array("ICC Profile".utf8) + [0, 0] + Zlib.stored(iccProfile))
            encoded.insert(contentsOf: chunk, at: 33)
        }
        return Data(encoded)
    }
}
