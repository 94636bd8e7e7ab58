internal import CPNGShim
import Foundation

extension PNGCodec {
    /// Encodes 8-bit grey, RGB or RGBA pixels losslessly.
    ///
    ///     let png = try PNGCodec.encode(pixels, compression: .fast, iccProfile: profile)
    ///
    /// The rows are filtered by CPNGShim (`pa_png_filter_rows`) and the whole filtered image
    /// deflated by libdeflate in one call, written as one IDAT chunk. One call needs the filtered
    /// image and its compressed form in memory at once, about twice the pixels (plus ISA-L's level
    /// buffer, about 280 KB at level 1): the callers encode
    /// an output already bounded by its fit box (2048 px a side for an attachment, less for a
    /// thumbnail), whose pixels they hold whole anyway, and the byte cap's search (ByteCapFitter)
    /// encodes one attempt at a time.
    ///
    /// - Parameters:
    ///   - compression: `.default` filters each row by libpng's heuristic and deflates with
    ///     ISA-L's level 1 over a megapixel (`Zlib.deflateFast`: a photo's bytes within 3 % of
    ///     libdeflate's level 3 at a quarter of the time), libdeflate's level 6 up to it; `.fast`
    ///     uses the Up filter and ISA-L's level 1.
    ///   - iccProfile: raw ICC bytes, written as an iCCP chunk right after IHDR (deflated by
    ///     libdeflate).
    public static func encode(
        _ pixels: PixelBuffer, compression: PNGCompression = .default, iccProfile: [UInt8]? = nil
    ) throws(CodecError) -> Data {
        try Limits.checkEncodable(pixels, maxSide: 1_000_000)
        let channels = pixels.layout.channels
        let rowBytes = pixels.width * channels
        let adaptive = compression == .default
        let level = adaptive && pixels.width * pixels.height <= smallImagePixels ? 6 : 1
        var stream: [UInt8]
        do {
            var filtered = [UInt8](repeating: 0, count: (rowBytes + 1) * pixels.height)
            let status = pixels.withUnsafeBytes { source in
                filtered.withUnsafeMutableBufferPointer { out in
                    pa_png_filter_rows(
                        source.baseAddress, pixels.stride, rowBytes,
                        UInt32(pixels.height), Int32(channels), adaptive ? 1 : 0, out.baseAddress)
                }
            }
            guard status == 0 else { throw CodecError.encodeFailed(codec: name, message: "out of memory filtering rows") }
            stream = level == 1 ? Zlib.deflateFast(filtered) : Zlib.deflate(filtered, level: 6)
        }
        let colourType: UInt8 =
            switch pixels.layout {
            case .gray: 0
            case .rgb: 2
            case .rgba: 6
            }
        var out = PNGChunks.signature
        out.reserveCapacity(stream.count + 64 + (iccProfile?.count ?? 0))
        out += PNGChunks.chunk(
            type: "IHDR", data: bigEndian(pixels.width) + bigEndian(pixels.height) + [8, colourType, 0, 0, 0])
        if let iccProfile, !iccProfile.isEmpty {
            // iCCP must come before PLTE and IDAT.
            out += PNGChunks.chunk(type: "iCCP", data: Array("ICC Profile".utf8) + [0, 0] + Zlib.deflate(iccProfile))
        }
        out += PNGChunks.chunk(type: "IDAT", data: stream)
        stream = []
        out += PNGChunks.chunk(type: "IEND", data: [])
        return Data(out)
    }

    /// Up to this many pixels `.default` deflates at level 6: thumbnails and small fits, where
    /// the time is small and flat graphics gain the most from it.
    static let smallImagePixels = 1 << 20

    private static func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
