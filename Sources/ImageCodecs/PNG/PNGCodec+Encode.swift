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
        var size = 0
        let sized = pixels.withUnsafeBytes { source in
            png_image_write_to_memory(image.pointer, nil, &size, 0, source.baseAddress, stride, nil)
        }
        guard sized != 0, size > 0 else { throw .encodeFailed(codec: name, message: image.message) }
        var encoded = [UInt8](repeating: 0, count: size)
        let written = encoded.withUnsafeMutableBufferPointer { output in
            pixels.withUnsafeBytes { source in
                png_image_write_to_memory(image.pointer, output.baseAddress, &size, 0, source.baseAddress, stride, nil)
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
