internal import CImageQuant

/// libimagequant's palettes for one GIF, kept from frame to frame: a frame is first remapped to
/// the palette an earlier frame was quantised to, and quantised afresh only when that palette
/// serves it clearly worse than its own would.
///
///     let palettes = GIFPalettes()
///     let indexed = try palettes.indices(for: region, width: w, height: h, quality: .standard)
///
/// Quantising (the histogram and the palette search) is most of a large GIF's encode: on A2's
/// 640x480 noise GIF, `ltrace -c` put 84 % of the time in `liq_image_quantize` and 3 % in
/// remapping. Frames of one animation mostly share their colours, so most remap to a kept
/// palette at a few percent of the cost; the test of "clearly worse" is the remapped frame's
/// mean square error (measured here: `meanSquareError`) against the error the frame that made
/// the palette had. Regions with transparent pixels and regions without keep one palette each:
/// only the first kind has a transparent entry, and a reuse that would show a transparent pixel
/// opaque, or an opaque one transparent, is refused.
///
/// One instance may serve several encoders of one animation in turn (`GIFEncoder`'s
/// `palettes`): a retry at a smaller size then starts from the palettes the attempt before it
/// kept, and its frames pass the same test. A palette serves only frames of the `Quality` it
/// was made for (its colour count and dithering).
///
/// Owns its libimagequant handles (an attribute set and a result per kept palette), so it is
/// not thread-safe; one encoder at a time uses it.
package final class GIFPalettes {
    private struct Kept {
        let attributes: OpaquePointer
        let result: OpaquePointer
        /// The remapping error of the frame the palette was made for.
        let error: Double
        let quality: GIFEncoder.Quality
    }

    /// A kept palette serves a frame when its remapping error is at most this many times the
    /// error the palette had on its own frame, or this much more (whichever is larger): the
    /// slack keeps a near-perfect palette (error ≈ 0) from being thrown away over noise. A
    /// palette made for a small region fits it closely, so later frames seldom pass: the safe
    /// direction. Measured on A2 (Benchmarks/RESULTS.md): 1.1 and 0.25 halve the 640x480 noise
    /// GIF's time at the same SSIM; 1.05 was slower and no better on the panning ones.
    static let tolerance = 1.1
    static let slack = 0.25

    private var kept: [Bool: Kept] = [:]
    /// Frames quantised afresh, and frames remapped to a kept palette (for the log and tests).
    package private(set) var quantized = 0
    package private(set) var reused = 0

    /// No palette kept yet.
    package init() {}

    deinit {
        for palette in kept.values {
            liq_result_destroy(palette.result)
            liq_attr_destroy(palette.attributes)
        }
    }

    /// Palette indices for `region` (RGBA, alpha 0 or 255, `width` x `height`), the palette, and
    /// the transparent index: a kept palette's when it serves, else a fresh one, kept from now on.
    func indices(for region: [UInt8], width: Int, height: Int, quality: GIFEncoder.Quality) throws(CodecError)
        -> (indices: [UInt8], palette: [(UInt8, UInt8, UInt8)], transparent: Int?)
    {
        guard width * height <= GIFEncoder.largestFrame else {
            throw .encodeFailed(
                codec: Self.codec,
                message:
                    "a \(width)x\(height) frame is over the \(GIFEncoder.largestFrame) pixels libimagequant quantises without leaking (GIFEncoder.largestFrame); scale it down first"
            )
        }
        OpenMPThreads.serialOnThisThread()
        let transparent = Self.hasTransparentPixels(region)
        var indices = [UInt8](repeating: 0, count: width * height)
        if let palette = kept[transparent], palette.quality == quality,
            let shown = try? Self.remap(region, width: width, height: height, palette.attributes, palette.result, &indices),
            shown.error >= 0, palette.error >= 0,
            shown.error <= max(palette.error * Self.tolerance, palette.error + Self.slack),
            Self.transparencyAgrees(region, indices, transparent: shown.transparent)
        {
            reused += 1
            return (indices, shown.colors, shown.transparent)
        }
        let fresh = try Self.quantize(region, width: width, height: height, quality: quality)
        let shown: (error: Double, colors: [(UInt8, UInt8, UInt8)], transparent: Int?)
        do {
            shown = try Self.remap(region, width: width, height: height, fresh.attributes, fresh.result, &indices)
        } catch {
            liq_result_destroy(fresh.result)
            liq_attr_destroy(fresh.attributes)
            throw error
        }
        if let old = kept[transparent] {
            liq_result_destroy(old.result)
            liq_attr_destroy(old.attributes)
        }
        kept[transparent] = Kept(
            attributes: fresh.attributes, result: fresh.result, error: shown.error, quality: quality)
        quantized += 1
        return (indices, shown.colors, shown.transparent)
    }

    private static func hasTransparentPixels(_ region: [UInt8]) -> Bool {
        region.withUnsafeBufferPointer { bytes in
            var p = 3
            while p < bytes.count {
                if bytes[p] == 0 { return true }
                p &+= 4
            }
            return false
        }
    }

    /// A new palette for `region`: the attribute set and the result, both the caller's to destroy.
    private static func quantize(_ region: [UInt8], width: Int, height: Int, quality: GIFEncoder.Quality)
        throws(CodecError) -> (attributes: OpaquePointer, result: OpaquePointer)
    {
        guard let attributes = liq_attr_create() else {
            throw .encodeFailed(codec: codec, message: "liq_attr_create failed (out of memory)")
        }
        _ = liq_set_max_colors(attributes, Int32(max(2, min(256, quality.maxColors))))
        _ = liq_set_speed(attributes, Int32(max(1, min(10, quality.speed))))
        var result: OpaquePointer?
        let status: liq_error = region.withUnsafeBytes { bitmap in
            guard let image = liq_image_create_rgba(attributes, bitmap.baseAddress!, Int32(width), Int32(height), 0)
            else { return LIQ_INVALID_POINTER }
            defer { liq_image_destroy(image) }
            return liq_image_quantize(image, attributes, &result)
        }
        guard status == LIQ_OK, let result else {
            liq_attr_destroy(attributes)
            throw .encodeFailed(
                codec: codec, message: "quantising a \(width)x\(height) frame failed (liq_error \(status.rawValue))")
        }
        _ = liq_set_dithering_level(result, max(0, min(1, quality.dithering)))
        return (attributes, result)
    }

    /// Remaps `region` to `result`'s palette (dithered at its level) into `indices`; returns the
    /// remapped pixels' mean square error (`meanSquareError`, -1 for an empty palette) and the
    /// palette as `palette(_:)` reads it.
    private static func remap(
        _ region: [UInt8], width: Int, height: Int, _ attributes: OpaquePointer, _ result: OpaquePointer,
        _ indices: inout [UInt8]
    ) throws(CodecError) -> (error: Double, colors: [(UInt8, UInt8, UInt8)], transparent: Int?) {
        let status: liq_error = region.withUnsafeBytes { bitmap in
            guard let image = liq_image_create_rgba(attributes, bitmap.baseAddress!, Int32(width), Int32(height), 0)
            else { return LIQ_INVALID_POINTER }
            defer { liq_image_destroy(image) }
            return indices.withUnsafeMutableBytes { liq_write_remapped_image(result, image, $0.baseAddress!, $0.count) }
        }
        guard status == LIQ_OK else {
            throw .encodeFailed(
                codec: codec, message: "remapping a \(width)x\(height) frame failed (liq_error \(status.rawValue))")
        }
        let shown = palette(result)
        return (meanSquareError(region, indices, shown.colors), shown.colors, shown.transparent)
    }

    /// True when exactly the transparent pixels of `region` (alpha 0) got the `transparent`
    /// index: a palette that would hide an opaque pixel, or show a transparent one, is no reuse.
    private static func transparencyAgrees(_ region: [UInt8], _ indices: [UInt8], transparent: Int?) -> Bool {
        region.withUnsafeBufferPointer { rgba in
            indices.withUnsafeBufferPointer { index in
                for p in 0..<index.count where (rgba[p &* 4 &+ 3] == 0) != (transparent == Int(index[p])) {
                    return false
                }
                return true
            }
        }
    }

    /// The mean square error, per channel in 8-bit units, of the opaque pixels of `region` shown
    /// through `indices` and `colors`. libimagequant's own `liq_get_remapping_error` is not
    /// updated when a result remaps a second image, so the test of a kept palette measures here.
    private static func meanSquareError(_ region: [UInt8], _ indices: [UInt8], _ colors: [(UInt8, UInt8, UInt8)])
        -> Double
    {
        guard !colors.isEmpty else { return -1 }
        var sum = 0, count = 0
        region.withUnsafeBufferPointer { rgba in
            indices.withUnsafeBufferPointer { index in
                for p in 0..<index.count where rgba[p &* 4 &+ 3] != 0 {
                    let c = colors[min(Int(index[p]), colors.count - 1)], o = p &* 4
                    let r = Int(rgba[o]) - Int(c.0), g = Int(rgba[o &+ 1]) - Int(c.1), b = Int(rgba[o &+ 2]) - Int(c.2)
                    sum &+= r &* r &+ g &* g &+ b &* b
                    count &+= 1
                }
            }
        }
        return count == 0 ? 0 : Double(sum) / Double(3 * count)
    }

    /// The palette `result` holds after its latest remapping (libimagequant refines it then),
    /// and its first entry with alpha under 128, if any.
    private static func palette(_ result: OpaquePointer) -> (colors: [(UInt8, UInt8, UInt8)], transparent: Int?) {
        guard let table = liq_get_palette(result) else { return ([], nil) }
        var colors: [(UInt8, UInt8, UInt8)] = []
        var transparent: Int?
        withUnsafeBytes(of: table.pointee.entries) { raw in
            let entries = raw.bindMemory(to: liq_color.self)
            for k in 0..<Int(table.pointee.count) {
                let c = entries[k]
                colors.append((c.r, c.g, c.b))
                if c.a < 128, transparent == nil { transparent = k }
            }
        }
        return (colors, transparent)
    }

    private static let codec = "libimagequant"
}
