import ImageCodecs

/// The ground truth of a case: its frames as upright RGBA, made from the seed before any encoder
/// sees them. Frame 0 covers the canvas; each later frame repaints one rectangle of the one
/// before (partial changes), with a colour offset or a new palette.
///
///     let frames = SourceFrames.make(EngineCase(seed: 7))
///     frames[0].width   // the case's upright width
enum SourceFrames {
    static func make(_ c: EngineCase) -> [PixelBuffer] {
        var r = CaseRandom(seed: c.seed ^ 0xF4A3_E5)
        let isGIF = c.container == .gif || c.container == .gifAnimated
        // A GIF frame holds at most 256 entries, the transparent one included.
        var count = c.colours ?? 0
        if isGIF, c.alpha != .none { count = min(count, 255) }
        var palette = makePalette(count: count, gray: c.gray, &r)
        let mask = AlphaMask(c, &r)
        var frame = PixelBuffer(width: c.width, height: c.height, layout: .rgba)
        paint(
            &frame, x0: 0, y0: 0, w: c.width, h: c.height, c: c, palette: palette, shift: 0, frameIndex: 0, hole: nil,
            &r)
        applyAlpha(&frame, mask: mask, x0: 0, y0: 0, w: c.width, h: c.height)
        var frames = [frame]
        for k in 1..<max(1, c.frames) {
            // The rectangle repainted: the whole canvas now and then, else a random part.
            let full = r.chance(0.2)
            let w = full ? c.width : r.int(1...c.width), h = full ? c.height : r.int(1...c.height)
            let x0 = r.int(0...(c.width - w)), y0 = r.int(0...(c.height - h))
            if c.localPalettes || !isGIF, count > 0, r.chance(0.5) {
                palette = makePalette(count: count, gray: c.gray, &r)
            }
            // Holes: a band of rows in the middle of the rectangle stays as it was.
            var hole: Range<Int>? = nil
            if c.holes, !(isGIF && c.localPalettes), h >= 3 {
                let start = y0 + h / 2
                hole = start..<min(y0 + h - 1, start + max(1, h / 4))
            }
            paint(
                &frame, x0: x0, y0: y0, w: w, h: h, c: c, palette: palette, shift: k * 37 + 1, frameIndex: k,
                hole: hole, &r)
            // A WebP frame may change its alpha too (a GIF's transparency stays, see GIFWriter).
            if !isGIF, c.alpha != .none, r.chance(0.3) {
                let moved = AlphaMask(c, &r)
                applyAlpha(&frame, mask: moved, x0: x0, y0: y0, w: w, h: h, hole: hole)
            }
            frames.append(frame)
        }
        return frames
    }

    /// `count` distinct colours (grey levels when `gray`).
    static func makePalette(count: Int, gray: Bool, _ r: inout CaseRandom) -> [(UInt8, UInt8, UInt8)] {
        guard count > 0 else { return [] }
        if gray {
            var levels = Array(0...255).map { UInt8($0) }
            for i in stride(from: 255, to: 0, by: -1) { levels.swapAt(i, r.int(0...i)) }
            return levels.prefix(count).map { ($0, $0, $0) }
        }
        var seen = Set<UInt32>()
        var colours: [(UInt8, UInt8, UInt8)] = []
        while colours.count < count {
            let c = (r.byte(), r.byte(), r.byte())
            if seen.insert(UInt32(c.0) << 16 | UInt32(c.1) << 8 | UInt32(c.2)).inserted { colours.append(c) }
        }
        return colours
    }

    /// Paints the rectangle (opaque colour; alpha is applied after) in the case's pattern.
    static func paint(
        _ frame: inout PixelBuffer, x0: Int, y0: Int, w: Int, h: Int, c: EngineCase,
        palette: [(UInt8, UInt8, UInt8)], shift: Int, frameIndex: Int, hole: Range<Int>?, _ r: inout CaseRandom
    ) {
        let width = frame.width
        var blockColours: [Int: Int] = [:]
        var i = 0
        for y in y0..<(y0 + h) {
            for x in x0..<(x0 + w) {
                defer { i += 1 }
                if let hole, hole.contains(y) { continue }
                let o = (y * width + x) * 4
                let rgb: (UInt8, UInt8, UInt8)
                if palette.isEmpty {
                    // True colour: gradients that move with the frame.
                    let gx = c.width > 1 ? x * 255 / (c.width - 1) : 128
                    let gy = c.height > 1 ? y * 255 / (c.height - 1) : 128
                    let v = UInt8(truncatingIfNeeded: gx + gy / 2 + frameIndex * 29)
                    rgb =
                        c.gray
                        ? (v, v, v)
                        : (v, UInt8(truncatingIfNeeded: gy + frameIndex * 13), UInt8((x * 7 + y * 3) & 0xFF))
                } else {
                    let n = palette.count
                    let index: Int
                    switch c.pattern {
                    case .ramp, .gradient: index = (i + shift) % n
                    case .noise: index = r.int(0...(n - 1))
                    case .blocks:
                        let key = (y / c.blockSize) * 65536 + x / c.blockSize
                        if let known = blockColours[key] {
                            index = known
                        } else {
                            index = r.int(0...(n - 1))
                            blockColours[key] = index
                        }
                    }
                    rgb = palette[index]
                }
                frame.bytes[o] = rgb.0
                frame.bytes[o + 1] = rgb.1
                frame.bytes[o + 2] = rgb.2
                if frameIndex == 0 { frame.bytes[o + 3] = 255 }
            }
        }
    }

    static func applyAlpha(
        _ frame: inout PixelBuffer, mask: AlphaMask, x0: Int, y0: Int, w: Int, h: Int, hole: Range<Int>? = nil
    ) {
        let width = frame.width
        for y in y0..<(y0 + h) where !(hole?.contains(y) ?? false) {
            for x in x0..<(x0 + w) { frame.bytes[(y * width + x) * 4 + 3] = mask.value(x, y) }
        }
    }
}

/// Where a case is transparent: none, binary shapes (a disc, a bottom band, blocks, noise) or
/// partial (a ramp, random levels in blocks).
struct AlphaMask {
    enum Shape { case opaque, disc, bottomBand, blocks, noise, ramp, levels }
    let shape: Shape
    let width: Int, height: Int
    let salt: UInt64
    let block: Int

    init(_ c: EngineCase, _ r: inout CaseRandom) {
        width = c.width
        height = c.height
        salt = r.next()
        block = r.pick([1, 4, 16])
        switch c.alpha {
        case .none: shape = .opaque
        case .binary: shape = r.pick([.disc, .bottomBand, .blocks, .noise])
        case .partial: shape = r.pick([.ramp, .levels])
        }
    }

    func value(_ x: Int, _ y: Int) -> UInt8 {
        switch shape {
        case .opaque: return 255
        case .disc:
            let dx = 2 * x - width, dy = 2 * y - height
            return dx * dx + dy * dy <= width * height / 2 ? 255 : 0
        case .bottomBand: return y >= height * 3 / 4 ? 0 : 255
        case .blocks: return hash(x / max(1, block * 4), y / max(1, block * 4)) & 1 == 0 ? 255 : 0
        case .noise: return hash(x, y) % 5 == 0 ? 0 : 255
        case .ramp: return UInt8(width > 1 ? x * 255 / (width - 1) : 128)
        case .levels: return UInt8(truncatingIfNeeded: hash(x / block, y / block))
        }
    }

    private func hash(_ x: Int, _ y: Int) -> UInt64 {
        var z =
            salt &+ UInt64(truncatingIfNeeded: x) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(truncatingIfNeeded: y)
            &* 0xC2B2_AE3D_27D4_EB4F
        z = (z ^ (z >> 31)) &* 0xBF58_476D_1CE4_E5B9
        return z ^ (z >> 29)
    }
}
