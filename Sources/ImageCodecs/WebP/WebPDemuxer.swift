internal import CWebP

/// Owns a `WebPDemuxer` and the copy of the file it points into: `init` throws when libwebp
/// cannot parse the RIFF container, `deinit` deletes the demuxer then frees the bytes.
///
///     let demuxer = try WebPDemuxer(bytes)
///     let frames = demuxer.frameCount
final class WebPDemuxer {
    private let storage: UnsafeMutableBufferPointer<UInt8>
    private let raw: OpaquePointer

    init(_ bytes: [UInt8]) throws(CodecError) {
        storage = .allocate(capacity: max(1, bytes.count))
        _ = storage.initialize(from: bytes)
        var data = WebPData(bytes: UnsafePointer(storage.baseAddress), size: bytes.count)
        guard let made = WebPDemux(&data) else {
            storage.deallocate()
            throw .corrupt(codec: WebPCodec.name, message: "the RIFF/WebP container could not be parsed")
        }
        raw = made
    }

    deinit {
        WebPDemuxDelete(raw)
        storage.deallocate()
    }

    var canvasWidth: Int { Int(WebPDemuxGetI(raw, WEBP_FF_CANVAS_WIDTH)) }
    var canvasHeight: Int { Int(WebPDemuxGetI(raw, WEBP_FF_CANVAS_HEIGHT)) }
    var frameCount: Int { Int(WebPDemuxGetI(raw, WEBP_FF_FRAME_COUNT)) }

    /// The ICCP chunk's payload (the raw ICC profile), if present.
    var iccProfile: [UInt8]? { chunk("ICCP", flag: ICCP_FLAG) }

    /// The EXIF chunk's payload as a TIFF structure (some writers prefix it with `Exif\0\0`).
    var exif: [UInt8]? { chunk("EXIF", flag: EXIF_FLAG).map(ImageInfo.tiffStructure) }

    /// The XMP chunk's payload (the XMP packet).
    var xmp: [UInt8]? { chunk("XMP ", flag: XMP_FLAG) }

    /// The first chunk of `fourCC` when the VP8X flags announce it.
    private func chunk(_ fourCC: String, flag: WebPFeatureFlags) -> [UInt8]? {
        guard WebPDemuxGetI(raw, WEBP_FF_FORMAT_FLAGS) & UInt32(flag.rawValue) != 0 else { return nil }
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(raw, fourCC, 1, &iterator) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        guard let bytes = iterator.chunk.bytes, iterator.chunk.size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: bytes, count: iterator.chunk.size))
    }

    /// The first frame's bitstream (copied) and where it sits on the canvas.
    struct Frame {
        var bitstream: [UInt8]
        var x: Int, y: Int, width: Int, height: Int
    }

    func firstFrame() throws(CodecError) -> Frame {
        var iterator = WebPIterator()
        guard WebPDemuxGetFrame(raw, 1, &iterator) != 0 else {
            throw .corrupt(codec: WebPCodec.name, message: "the animation has no readable first frame")
        }
        defer { WebPDemuxReleaseIterator(&iterator) }
        guard let bytes = iterator.fragment.bytes, iterator.fragment.size > 0 else {
            throw .corrupt(codec: WebPCodec.name, message: "the first frame is empty")
        }
        return Frame(
            bitstream: Array(UnsafeBufferPointer(start: bytes, count: iterator.fragment.size)),
            x: Int(iterator.x_offset), y: Int(iterator.y_offset), width: Int(iterator.width),
            height: Int(iterator.height))
    }
}
