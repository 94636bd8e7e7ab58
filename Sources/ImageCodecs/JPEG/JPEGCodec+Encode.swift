internal import CTurboJPEG
import Foundation

extension JPEGCodec {
    /// Encodes 8-bit pixels as a baseline (or progressive) JFIF JPEG. Alpha is dropped;
    /// `.gray` subsampling or `.gray` pixels write a one-component JPEG.
    ///
    ///     let jpeg = try JPEGCodec.encode(pixels, quality: 90, subsampling: .s444, iccProfile: profile)
    ///
    /// - Parameters:
    ///   - quality: 1...100, clamped.
    ///   - iccProfile: written as APP2 `ICC_PROFILE` chunks after the JFIF segment.
    public static func encode(
        _ pixels: PixelBuffer, quality: Int = 85, subsampling: ChromaSubsampling = .s420,
        progressive: Bool = false, iccProfile: [UInt8]? = nil
    ) throws(CodecError) -> Data {
        try Limits.checkEncodable(pixels, maxSide: 65_500)
        let format: TJPF
        switch pixels.layout {
        case .gray: format = TJPF_GRAY
        case .rgb: format = TJPF_RGB
        case .rgba: format = TJPF_RGBA
        }
        let sampling: TJSAMP
        switch (pixels.layout, subsampling) {
        case (.gray, _), (_, .gray): sampling = TJSAMP_GRAY
        case (_, .s444): sampling = TJSAMP_444
        case (_, .s422): sampling = TJSAMP_422
        case (_, .s420): sampling = TJSAMP_420
        }
        var flags = TJFLAG_ACCURATEDCT
        if progressive { flags |= TJFLAG_PROGRESSIVE }

        let encoded = try TurboJPEGPool.compressors.with { handle throws(CodecError) -> [UInt8] in
            var jpegBuffer: UnsafeMutablePointer<UInt8>? = nil
            var jpegSize: UInt = 0
            defer { if let jpegBuffer { tjFree(jpegBuffer) } }
            let status = pixels.withUnsafeBytes { source in
                tjCompress2(
                    handle.raw, source.baseAddress, Int32(pixels.width), Int32(pixels.stride), Int32(pixels.height),
                    Int32(format.rawValue), &jpegBuffer, &jpegSize, Int32(sampling.rawValue),
                    Int32(min(100, max(1, quality))), Int32(flags))
            }
            // TurboJPEG 2.1 keeps the optimised Huffman tables of a progressive job in the
            // handle; a later baseline job on it writes a corrupt stream ("bad Huffman code").
            if progressive { handle.isReusable = false }
            guard status == 0, let jpegBuffer, jpegSize > 0 else {
                throw .encodeFailed(codec: name, message: handle.failure())
            }
            return Array(UnsafeBufferPointer(start: jpegBuffer, count: Int(jpegSize)))
        }
        if let iccProfile, !iccProfile.isEmpty {
            return Data(JPEGICC.embed(iccProfile, in: encoded))
        }
        return Data(encoded)
    }
}
