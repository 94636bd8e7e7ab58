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

        // TurboJPEG 2.1 keeps the optimised Huffman tables of a progressive job in the handle; a
        // later baseline job on it writes a corrupt stream ("bad Huffman code").
        return try compressed(iccProfile: iccProfile, spoilsHandle: progressive) { handle, jpegBuffer, jpegSize in
            pixels.withUnsafeBytes { source in
                tjCompress2(
                    handle, source.baseAddress, Int32(pixels.width), Int32(pixels.stride), Int32(pixels.height),
                    Int32(format.rawValue), jpegBuffer, jpegSize, Int32(sampling.rawValue),
                    Int32(min(100, max(1, quality))), Int32(flags))
            }
        }
    }

    /// One TurboJPEG compress call (`call` gets the handle and the output pointers, returns its
    /// status) on a pooled handle: its bytes copied out and freed, `iccProfile` embedded, a
    /// failure in TurboJPEG's words. `spoilsHandle`: the handle is dropped, not pooled again.
    private static func compressed(
        iccProfile: [UInt8]?, spoilsHandle: Bool = false,
        _ call: (tjhandle, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<UInt>) -> Int32
    ) throws(CodecError) -> Data {
        let encoded = try TurboJPEGPool.compressors.with { handle throws(CodecError) -> [UInt8] in
            var jpegBuffer: UnsafeMutablePointer<UInt8>? = nil
            var jpegSize: UInt = 0
            defer { if let jpegBuffer { tjFree(jpegBuffer) } }
            let status = call(handle.raw, &jpegBuffer, &jpegSize)
            if spoilsHandle { handle.isReusable = false }
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

    /// Encodes 4:2:0 YCbCr planes as a baseline JFIF JPEG: the planes are the JPEG's components
    /// as they are, so there is no colour conversion and no chroma downsampling
    /// (`tjCompressFromYUVPlanes`). Same quality scale and IDCT as `encode(_:quality:...)`.
    ///
    ///     let jpeg = try JPEGCodec.encode(planes, quality: 85, iccProfile: profile)
    package static func encode(_ planes: YCbCrPlanes, quality: Int = 85, iccProfile: [UInt8]? = nil)
        throws(CodecError) -> Data
    {
        try Limits.checkEncodable(planes.y, maxSide: 65_500)
        // TurboJPEG reads a 4:2:0 luma plane of even width and height (`tjPlaneWidth`), one
        // column and one row past an odd-sized image: give it those, the edge repeated.
        let luma = Self.evenSized(planes.y)
        let strides = [Int32(luma.stride), Int32(planes.cb.stride), Int32(planes.cr.stride)]
        return try compressed(iccProfile: iccProfile) { handle, jpegBuffer, jpegSize in
            luma.withUnsafeBytes { y in
                planes.cb.withUnsafeBytes { cb in
                    planes.cr.withUnsafeBytes { cr in
                        var sources: [UnsafePointer<UInt8>?] = [y.baseAddress, cb.baseAddress, cr.baseAddress]
                        return tjCompressFromYUVPlanes(
                            handle, &sources, Int32(planes.width), strides, Int32(planes.height),
                            Int32(TJSAMP_420.rawValue), jpegBuffer, jpegSize, Int32(min(100, max(1, quality))),
                            Int32(TJFLAG_ACCURATEDCT))
                    }
                }
            }
        }
    }

    /// `plane` with an even width and height, the last column and row repeated into the pad;
    /// `plane` itself when both are even.
    static func evenSized(_ plane: PixelBuffer) -> PixelBuffer {
        let (w, h) = (plane.width, plane.height)
        guard w % 2 == 1 || h % 2 == 1 else { return plane }
        let (paddedWidth, paddedHeight) = (w + w % 2, h + h % 2)
        var padded = [UInt8](repeating: 0, count: paddedWidth * paddedHeight)
        plane.withUnsafeBytes { source in
            for y in 0..<paddedHeight {
                let from = source.baseAddress! + min(y, h - 1) * plane.stride
                let row = y * paddedWidth
                padded.withUnsafeMutableBufferPointer { $0.baseAddress!.advanced(by: row).update(from: from, count: w) }
                if paddedWidth > w { padded[row + w] = from[w - 1] }
            }
        }
        // The pad stays outside the image's own size, which the encoder is given.
        return PixelBuffer(width: w, height: h, layout: .gray, stride: paddedWidth, bytes: padded)
    }
}
