import ImageCodecs
import MediaTypes

extension ImageProcessor {
    /// The most memory the animation path (`processAnimation`) may need for a `width × height`
    /// canvas, in bytes: what `workingMemory` answers for a GIF or an animated WebP.
    ///
    ///     ImageProcessor.animationWorkingMemory(width: 640, height: 480, limits: ProcessingLimits())
    ///     // 4.9 MB of canvases and frames + 20 MB for the encoder's bytes and their copy
    ///
    /// What is alive at once, 4 bytes a pixel, `canvas` being the source canvas and `frame` the
    /// first (largest) output size, `TargetSize.main` of the canvas:
    /// - the codec: its **canvas** and a **saved canvas** (GIF "restore to previous"; libwebp's
    ///   animation decoder keeps its previous canvas too), and for WebP the frame being decoded
    ///   (at most a canvas): 3 × canvas;
    /// - the `Resizer`: a premultiplied copy of the canvas (frames with alpha) and its 16-bit
    ///   intermediate (canvas width × frame height × 4 × 2);
    /// - the **resized frame** and the quantiser's copy of it with its index map (frame + frame + frame / 4);
    /// - the encoder's **output**, which stops at the byte cap, and its copy into `Data`: 2 × cap;
    /// - the thumbnail (its pixels, from the first frame).
    ///
    /// The first-frame fallback holds less: one canvas, the resized still and `ByteCapFitter`'s
    /// attempts, all within the above.
    /// - Complexity: O(1).
    package static func animationWorkingMemory(width: Int, height: Int, limits: ProcessingLimits) -> Int {
        guard width > 0, height > 0 else { return 0 }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > Int.max / 64 { return Int.max / 4 }
        let canvas = pixels * 4
        let main = TargetSize.main(for: Size(width: width, height: height), policy: limits.policy)
        let frame = main.width * main.height * 4
        let resizer = canvas + width * main.height * 8
        let thumb = limits.thumbnailSize.map { side -> Int in
            let t = TargetSize.thumbnail(for: Size(width: width, height: height), side: side)
            return t.width * t.height * 4
        } ?? 0
        return 3 * canvas + resizer + frame * 2 + frame / 4 + 2 * limits.byteCap + thumb
    }
}
