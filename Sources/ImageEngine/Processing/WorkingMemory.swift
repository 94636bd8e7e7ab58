import ImageCodecs
import MediaTypes

extension ImageProcessor {
    /// The most memory `process` may need for one image whose header says `width × height`,
    /// in bytes: what the pipeline reserves from its process-wide memory budget before it
    /// hands the image to the engine.
    ///
    ///     let bytes = ImageProcessor.workingMemory(width: 4000, height: 3000, format: .jpeg, limits: limits)
    ///     // 57 MB as a progressive JPEG (its coefficients), 33 MB once the header says baseline
    ///
    /// What is alive at once, at the decode scale `process` picks (`ImageCodecs.scaledSize` of
    /// the box covering the main output and the thumbnail), with 4 bytes a pixel (RGBA, the
    /// worst layout), `frame` being the main output's bytes:
    /// - always: the main output **frame** (held to the end: the thumbnail comes from it), and a
    ///   **shrunk attempt** of at most 0.64 × frame (the byte-cap fitter's ×0.8 step), then the
    ///   largest of three phases that never overlap:
    /// - **decode**: the `RowResizer` ring and rows (`RowResizer.workingMemory`, the larger of
    ///   the two stored orientations: the header does not say the Exif orientation) + the
    ///   decoder's own memory;
    /// - **encode**: the compressed bytes twice (written by the encoder, copied into `Data`),
    ///   taken as min(byte cap, frame / 2): a photo at q85, or its PNG, is far below half its
    ///   RGBA size. TurboJPEG reserves its worst-case buffer, but only the pages it writes
    ///   become resident;
    /// - **thumbnail**: its frame + `Resizer`'s 16-bit intermediate from the main output
    ///   (main width × thumbnail height × 4 × 2).
    ///
    /// The decoder's memory, from the header alone: `holdsFrame` says whether it keeps a
    /// full-size structure whatever the scale — a progressive JPEG's coefficients (w × h × 1.5
    /// blocks × 2 bytes, for 4:2:0), an interlaced PNG's frame (w × h × 8: 16-bit RGBA at
    /// worst), a WebP's frame (w × h × 4: lossless keeps ARGB; the scaled frame WebP's row source
    /// hands out is at most that), HEIC/HEIF/AVIF always (libheif decodes the whole image: see
    /// `heifDecoderMemory`) — and `nil` (not known) assumes it does. A sequential decoder
    /// holds a few MCU rows or two PNG rows: 128 bytes per decoded column + 256 KB of tables
    /// and zlib state; a baseline JPEG at 1/8 also its planes, read whole (1.5 bytes a decoded
    /// pixel: `JPEGDCDecoder`). This counts the row decoders; a codec still decoding whole frames
    /// (`FrameRowSource`) holds the decoded frame besides.
    ///
    /// A GIF, and a WebP that is (or may be) animated, are counted for the animation path too
    /// (`animationWorkingMemory`: canvas, saved canvas, resized frame, encoder bytes up to the
    /// byte cap); a WebP whose animation is not known counts the larger of both paths.
    ///
    /// - Parameters:
    ///   - holdsFrame: `ImageInfo.isProgressive` for a JPEG, the IHDR interlace
    ///     flag for a PNG, when the caller has read them.
    ///   - animated: for a WebP, whether its header says it is animated; nil when not known.
    /// - Complexity: O(1).
    package static func workingMemory(
        width: Int, height: Int, format: MediaFormat, limits: ProcessingLimits, holdsFrame: Bool? = nil,
        animated: Bool? = nil
    ) -> Int {
        guard width > 0, height > 0 else { return 0 }
        if format == .gif || (format == .webp && animated == true) {
            return animationWorkingMemory(width: width, height: height, limits: limits)
        }
        if format == .webp && animated == nil {
            return max(
                animationWorkingMemory(width: width, height: height, limits: limits),
                workingMemory(width: width, height: height, format: format, limits: limits, animated: false))
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > Int.max / 64 { return Int.max / 4 }
        let stored = Size(width: width, height: height)
        let main = TargetSize.main(for: stored, policy: limits.policy)
        let thumb = limits.thumbnailSize.map { TargetSize.thumbnail(for: stored, side: $0) }
        let cover = Size(width: max(main.width, thumb?.width ?? 0), height: max(main.height, thumb?.height ?? 0))
        var resize = 0, decodedWidth = 0, decodedPixels = 0
        for swapped in [false, true] {
            // `main` and `cover` are upright; a transposing orientation decodes the swapped box.
            let box = swapped ? (cover.height, cover.width) : (cover.width, cover.height)
            let decoded = ImageCodecs.scaledSize(width: width, height: height, minimumSize: box, format: format)
            let target = swapped ? Size(width: main.height, height: main.width) : main
            let bytes = RowResizer.workingMemory(
                source: Size(width: decoded.width, height: decoded.height), channels: 4, to: target)
            resize = max(resize, bytes)
            decodedWidth = max(decodedWidth, decoded.width)
            decodedPixels = max(decodedPixels, decoded.width * decoded.height)
        }
        let frame = main.width * main.height * 4
        let shrunk = frame * 64 / 100
        let decode = resize - frame
            + decoderMemory(
                width: width, height: height, decoded: (decodedWidth, decodedPixels), format: format, holdsFrame)
        let encode = 2 * min(limits.byteCap, frame / 2)
        let thumbnail = thumb.map { $0.width * $0.height * 4 + main.width * $0.height * 8 } ?? 0
        return frame + shrunk + max(decode, encode, thumbnail)
    }

    /// The decoder's own bytes (see `workingMemory`); `decoded` is the widest decode and the
    /// largest in pixels.
    private static func decoderMemory(
        width: Int, height: Int, decoded: (width: Int, pixels: Int), format: MediaFormat, _ holdsFrame: Bool?
    ) -> Int {
        let sequential = decoded.width * 128 + 256 * 1024
        switch format {
        case .jpeg:
            // At 1/8 a baseline file is read whole into its luma and 4:2:0 chroma planes first
            // (`JPEGCodec.withPlanes`, `JPEGDCDecoder`): 1.5 bytes a decoded pixel.
            let dcPlanes = decoded.width == (width + 7) / 8 ? decoded.pixels * 3 / 2 : 0
            return holdsFrame ?? true ? sequential + width * height * 3 : sequential + dcPlanes
        case .png: return holdsFrame ?? true ? sequential + width * height * 8 : sequential
        case .heic, .heif, .avif: return sequential + heifDecoderMemory(width: width, height: height, format: format)
        default: return sequential + width * height * 4
        }
    }

    /// libheif's bytes for a `width × height` primary image, which it always decodes whole (no
    /// shrink-on-load): the 8-bit interleaved RGBA frame the row source reads from (4 bytes a
    /// pixel), and before it libheif's own planes. Coded planes take up to 2 bytes a sample (10-
    /// and 12-bit) × 1.5 samples a pixel (4:2:0) + 1 for alpha ≈ 4 bytes a pixel; the `irot`/
    /// `imir` transform copies them (2 × 4), and the RGB conversion holds planes and frame at
    /// once (4 + 4). So 8 bytes a pixel at the peak, of which the 4 of the frame stay while the
    /// rows are read. AV1 counts 10: dav1d keeps its own picture (and reference) buffers
    /// besides libheif's copy. Measured (pushattach-bench W5, one 12.2 MP image fitted to 2048,
    /// peak RSS above the bench's baseline): HEIC 99 MB against 120 MB counted here, AVIF 125
    /// MB against 144 MB. (4:4:4 10-bit with alpha would be 8 a plane set; such files are rare.)
    static func heifDecoderMemory(width: Int, height: Int, format: MediaFormat) -> Int {
        width * height * (format == .avif ? 10 : 8)
    }
}
