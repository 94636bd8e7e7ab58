import ImageEngine
import MediaTypes

/// One generated case: what the input is, how it is stored, and the per-run limits it meets.
/// Everything follows from `seed` (`EngineCase(seed:)`), so a printed seed reproduces it.
///
///     let c = EngineCase(seed: 7)
///     print(c)   // "seed 7: gif-anim 320x200, 12 frames, 256 colours ramp, alpha none, ..."
public struct EngineCase: Sendable, CustomStringConvertible {
    /// The container the input is written in.
    public enum Container: String, Sendable, CaseIterable {
        case jpeg, png, webp, webpAnimated = "webp-anim", gif, gifAnimated = "gif-anim"
        var isAnimated: Bool { self == .webpAnimated || self == .gifAnimated }
    }
    /// How the pixels are laid out.
    public enum Pattern: String, Sendable {
        /// Palette index = position in the row-major order (mod the colour count): every run of
        /// `colours` pixels holds every colour, the layout that fills a palette soonest.
        case ramp
        /// Random squares of palette colours.
        case blocks
        /// A random palette colour per pixel.
        case noise
        /// Smooth gradients (true colour; `colours` ignored).
        case gradient
    }
    public enum Alpha: String, Sendable { case none, binary, partial }

    public let seed: UInt64
    public var container: Container
    /// Upright size: what a viewer shows (the stored JPEG is turned by `orientation`).
    public var width: Int
    public var height: Int
    public var frames: Int
    /// Distinct colours per frame (1...256); nil for true colour (`gradient`).
    public var colours: Int?
    public var pattern: Pattern
    public var blockSize: Int
    public var alpha: Alpha
    /// Every frame after the first repaints one rectangle (with a new colour offset); `holes`
    /// keeps the rectangle's bottom band unchanged, so an encoder's changed region ends with
    /// unchanged (transparent) pixels after its colours.
    public var holes: Bool
    /// Each GIF frame brings its own 256-entry local palette instead of the global one.
    public var localPalettes: Bool
    public var frameDurations: [Int]
    // JPEG
    public var orientation: Int
    public var progressive: Bool
    public var cmyk: Bool
    public var gray: Bool
    public var jpegQuality: Int
    // PNG
    public var sixteenBit: Bool
    public var interlaced: Bool
    /// Colour type 3 (palette, with tRNS when there is alpha) when the colours fit.
    public var indexed: Bool
    // WebP
    public var lossless: Bool
    // Limits, per run.
    /// The image byte cap as a factor of the input's size (clamped to 4 KB ... Apple's 10 MB),
    /// so inputs land just under, on and just over the cap.
    public var byteCapFactor: Double
    public var maxLongSide: Int
    public var memoryBudget: Int
    public var thumbnailSize: Int?
    /// The frame cap as an offset from `frames` (nil: the default 300).
    public var frameCapOffset: Int?
    /// The duration cap is one millisecond under the animation's total.
    public var durationCapBelowTotal: Bool

    /// Smallest and largest sides generated.
    public static let sideRange = 1...4000

    /// The case for `seed`. `maxSide` caps the generated size (the test slice keeps cases small).
    public init(seed: UInt64, maxSide: Int = 4000) {
        self.seed = seed
        var r = CaseRandom(seed: seed)
        container = r.weighted([
            (.jpeg, 24), (.png, 24), (.webp, 12), (.webpAnimated, 14), (.gif, 8), (.gifAnimated, 18),
        ])
        let animated = container.isAnimated
        frames = animated ? r.weighted([(2, 4), (r.int(3...8), 8), (r.int(9...30), 3), (r.int(31...60), 1)]) : 1
        if container == .gif { frames = 1 }
        // Sizes: mostly tiny and small (fast), edges (1, powers of two ± 1), rarely large.
        func side(_ r: inout CaseRandom) -> Int {
            r.weighted([
                (r.int(1...16), 25), (r.int(17...256), 35),
                (r.pick([1, 2, 3, 15, 16, 17, 63, 64, 65, 255, 256, 257]), 15),
                (r.int(257...1200), 18), (r.int(1201...4000), 2),
            ])
        }
        width = side(&r)
        height = r.chance(0.3) ? width : side(&r)
        // Animations: a smaller canvas (every frame is decoded, resized and quantised per try).
        let frameBudget = animated ? max(64, 1_500_000 / max(1, frames)) : Int.max
        while width * height > frameBudget {
            width = max(1, width * 3 / 4)
            height = max(1, height * 3 / 4)
        }
        // Only JPEG (the fastest codec both ways) goes up to 4000 px; the others to 2600 (above the
        // 2048 long side all the same), so a run spends its time on many cases, not a few huge ones.
        let largest = container == .jpeg ? maxSide : min(maxSide, 2600)
        width = min(width, largest)
        height = min(height, largest)

        pattern = r.weighted([(.ramp, 3), (.blocks, 3), (.noise, 2), (.gradient, 2)])
        blockSize = r.pick([1, 2, 3, 8, 16, 32, 64])
        colours = pattern == .gradient ? nil : r.weighted([(r.int(1...16), 3), (r.int(17...255), 3), (256, 4)])
        alpha = r.weighted([(.none, 5), (.binary, 3), (.partial, 2)])
        holes = r.chance(0.5)
        localPalettes = r.chance(0.4)
        let base = r.pick([0, 10, 20, 40, 100, 500])
        frameDurations = (0..<frames).map { _ in base == 0 ? r.int(0...200) : base }

        orientation = r.chance(0.5) ? 1 : r.int(1...8)
        progressive = r.chance(0.3)
        cmyk = r.chance(0.15)
        gray = !cmyk && r.chance(0.15)
        jpegQuality = r.pick([50, 75, 90, 100])
        sixteenBit = r.chance(0.25)
        interlaced = r.chance(0.3)
        indexed = r.chance(0.4)
        lossless = r.chance(animated ? 0.7 : 0.5)

        // GIF has no partial alpha, JPEG none at all.
        if container == .jpeg { alpha = .none }
        if container == .gif || container == .gifAnimated, alpha == .partial { alpha = .binary }
        if gray, container == .jpeg { colours = nil; pattern = r.pick([.gradient, .noise]) }
        if container == .gif || container == .gifAnimated, colours == nil { colours = 256 }
        // Lossy WebP of pixel noise is noise (4:2:0 chroma over random neighbours: 20-50 levels off
        // per pixel), which no tolerance can tell from a wrong output on a tiny image; lossy WebP
        // gets what lossy WebP is made for: gradients and flat blocks.
        if container == .webp || container == .webpAnimated, !lossless {
            if pattern == .noise || pattern == .ramp { pattern = r.pick([.gradient, .blocks]) }
            if pattern == .gradient { colours = nil }
            blockSize = max(8, blockSize)
        }

        byteCapFactor = r.weighted([(0.3, 2), (0.7, 2), (0.97, 2), (1.0, 2), (1.03, 1), (2.0, 2), (1000, 4)])
        maxLongSide = r.weighted([
            (2048, 5), (r.pick([16, 64, 100, 256, 512, 1000]), 3), (max(1, max(width, height) + r.int(-1...1)), 2),
        ])
        memoryBudget = r.weighted([(24_000_000, 6), (r.pick([4_000, 64_000, 1_000_000, 4_000_000]), 1)])
        // `--thumbnail` takes 16...4096.
        thumbnailSize =
            r.chance(0.4) ? r.weighted([(r.pick([16, 64, 128, 256, 300]), 12), (r.pick([1024, 4096]), 1)]) : nil
        frameCapOffset = animated && r.chance(0.15) ? r.int(-2...0) : nil
        durationCapBelowTotal = animated && r.chance(0.08)
    }

    /// The rules and engine limits of this case's run, for an input of `inputBytes` bytes.
    public func limits(inputBytes: Int) -> (rules: AppleRules, limits: ProcessingLimits) {
        var rules = AppleRules.standard
        let cap = Double(inputBytes) * byteCapFactor
        rules.imageByteCap = Int(min(Double(AppleRules.standard.imageByteCap), max(4096, cap.rounded())))
        rules.decodedBudget = memoryBudget
        var limits = ProcessingLimits(byteCap: rules.imageByteCap, maxLongSide: maxLongSide, decodedBudget: memoryBudget)
        limits.thumbnailSize = thumbnailSize
        if let frameCapOffset { limits.maxAnimationFrames = max(1, frames + frameCapOffset) }
        if durationCapBelowTotal {
            limits.maxAnimationDuration = max(0, frameDurations.reduce(0, +) - 1)
        }
        return (rules, limits)
    }

    public var description: String {
        var parts = ["seed \(seed): \(container.rawValue) \(width)x\(height)"]
        if frames > 1 { parts.append("\(frames) frames") }
        parts.append("\(colours.map { "\($0) colours" } ?? "true colour") \(pattern.rawValue)")
        if pattern == .blocks { parts.append("block \(blockSize)") }
        parts.append("alpha \(alpha.rawValue)")
        switch container {
        case .jpeg:
            parts.append("orientation \(orientation)")
            if progressive { parts.append("progressive") }
            if cmyk { parts.append("cmyk") }
            if gray { parts.append("gray") }
            parts.append("q\(jpegQuality)")
        case .png:
            if sixteenBit { parts.append("16-bit") }
            if interlaced { parts.append("interlaced") }
            if indexed { parts.append("indexed") }
        case .webp, .webpAnimated:
            parts.append(lossless ? "lossless" : "lossy")
        case .gif, .gifAnimated:
            if localPalettes { parts.append("local palettes") }
        }
        if frames > 1, holes { parts.append("holes") }
        parts.append("cap x\(byteCapFactor)")
        parts.append("long side \(maxLongSide)")
        if memoryBudget != 24_000_000 { parts.append("memory \(memoryBudget)") }
        if let thumbnailSize { parts.append("thumbnail \(thumbnailSize)") }
        if let frameCapOffset { parts.append("frame cap \(frames + frameCapOffset)") }
        if durationCapBelowTotal { parts.append("duration cap total-1") }
        return parts.joined(separator: ", ")
    }
}
