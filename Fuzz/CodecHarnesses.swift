#if FUZZING
    import Foundation
    import ImageCodecs
    import MediaTypes

    /// Header probe, then a full decode under a small pixel budget (4 MP) and a shrink-on-load
    /// target, so one input stays fast and within the fuzzer's RSS limit.
    func probeAndDecode(_ bytes: [UInt8], format: MediaFormat) {
        let data = Data(bytes)
        guard (try? ImageCodecs.readInfo(data, format: format)) != nil else { return }
        let options = DecodeOptions(minimumSize: (64, 64), pixelBudget: 4_000_000)
        _ = try? ImageCodecs.decode(data, format: format, options: options)
        let strict = DecodeOptions(minimumSize: nil, pixelBudget: 1_000_000, strict: true)
        _ = try? ImageCodecs.decode(data, format: format, options: strict)
    }

    /// The planar decode at 1/8, as a thumbnail-sized fit takes it: the DC-only reader
    /// (`JPEGDCDecoder`) over the bytes libjpeg's header read accepted.
    func dcPlanes(_ bytes: [UInt8]) {
        let options = DecodeOptions(minimumSize: (1, 1), pixelBudget: 16_000_000)
        _ = try? JPEGCodec.withPlanes(Data(bytes), options: options, onlyDCAtOneEighth: true) { luma, chroma in
            _ = try luma.readAll()
            _ = chroma()
        }
    }

    /// The planar decode at 3/8, 5/8, 6/8 and 7/8, where CJPEGShim's SIMD IDCTs (scaled_idct.c)
    /// replace libjpeg's and 4:2:0 chroma gets the luma's IDCT in place of libjpeg's doubled one
    /// (`pa_jpeg_idct_chroma_at_own_scale`); and the RGB decode at 6/8 and 7/8 through the same
    /// IDCTs.
    func oddScalePlanes(_ bytes: [UInt8]) {
        let data = Data(bytes)
        guard let info = try? JPEGCodec.readInfo(data) else { return }
        for eighths in [3, 5, 6, 7] {
            let box = ((info.width * eighths + 7) / 8, (info.height * eighths + 7) / 8)
            let options = DecodeOptions(minimumSize: box, pixelBudget: 4_000_000)
            _ = try? JPEGCodec.withPlanes(data, options: options) { luma, chroma in
                _ = try luma.readAll()
                _ = chroma()
            }
            if eighths >= 6 { _ = try? ImageCodecs.decode(data, format: .jpeg, options: options) }
        }
    }

    /// CJPEGShim's own Huffman decoder (huffman.c) against libjpeg's: the same decode both ways
    /// must show the same rows, outcome and warnings, at 1/8 (no AC stored) and 3/8, and at 8/8
    /// for a small image; a difference stops the run as a finding.
    func huffmanAgreement(_ bytes: [UInt8]) {
        for eighths in [1, 3, 8] {
            let limit = eighths == 8 ? 250_000 : 1_000_000
            let libjpeg = JPEGCodec.huffmanCheck(bytes, eighths: eighths, ownHuffman: false, pixelLimit: limit)
            let own = JPEGCodec.huffmanCheck(bytes, eighths: eighths, ownHuffman: true, pixelLimit: limit)
            if own != libjpeg { fatalError("own Huffman decoder at \(eighths)/8: \(own), libjpeg's: \(libjpeg)") }
        }
    }

    let jpegHarness = Harness(name: "jpeg") {
        probeAndDecode($0, format: .jpeg)
        huffmanAgreement($0)
        dcPlanes($0)
        oddScalePlanes($0)
        // The validation read of a pass-through JPEG: the same reader over one scratch MCU row.
        _ = JPEGCodec.validateByDC(Data($0), options: DecodeOptions(minimumSize: (1, 1), pixelBudget: 16_000_000))
    }
    /// CPNGShim's own PNG reader (fast.c) against libpng's: the same decode both ways must show
    /// the same rows, outcome and warnings; a difference stops the run as a finding.
    func pngReaderAgreement(_ bytes: [UInt8]) {
        let libpng = PNGCodec.fastCheck(bytes, fast: false, pixelLimit: 1_000_000)
        let own = PNGCodec.fastCheck(bytes, fast: true, pixelLimit: 1_000_000)
        if own != libpng { fatalError("own PNG reader: \(own), libpng's: \(libpng)") }
    }

    let pngHarness = Harness(name: "png") {
        probeAndDecode($0, format: .png)
        pngReaderAgreement($0)
    }
    let webpHarness = Harness(name: "webp") { probeAndDecode($0, format: .webp) }
    /// HEIC, HEIF and AVIF share one codec (libheif picks the decoder by brand): the box walk
    /// of `HEIFTransforms`, libheif's parser, then libde265 or dav1d/aom.
    let heifHarness = Harness(name: "heif") { probeAndDecode($0, format: .heic) }
#endif
