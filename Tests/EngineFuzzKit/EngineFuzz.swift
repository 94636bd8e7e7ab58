import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes
import Verification

/// What `prepare`'s per-item call (`MediaStage.prepare`, a package declaration of PushAttach)
/// made of one body, copied field by field by the caller's adapter: the fuzz target and
/// PipelineTests reach the stage through `PushAttach`; this kit cannot (it is below it), so it
/// takes the call as a closure.
public struct StageOutcome: Sendable {
    public var prepared: Bool
    public var reason: String?
    public var data: Data?
    public var format: MediaFormat?
    public var width: Int?
    public var height: Int?
    public var frames: Int?
    public var steps: [String]
    public var warnings: [String]
    public var thumbnail: (data: Data, format: MediaFormat)?
    public var outputIsInput: Bool

    public init(
        prepared: Bool, reason: String?, data: Data?, format: MediaFormat?, width: Int?, height: Int?, frames: Int?,
        steps: [String], warnings: [String], thumbnail: (data: Data, format: MediaFormat)?, outputIsInput: Bool
    ) {
        self.prepared = prepared
        self.reason = reason
        self.data = data
        self.format = format
        self.width = width
        self.height = height
        self.frames = frames
        self.steps = steps
        self.warnings = warnings
        self.thumbnail = thumbnail
        self.outputIsInput = outputIsInput
    }
}

/// The output paths of the engine a case can take (several at once: a fit with a byte-cap retry
/// and a thumbnail).
public enum OutputPath: String, Sendable, CaseIterable, Hashable {
    /// The input bytes are the output.
    case passthrough
    /// Made smaller: the long side, the memory budget or the byte cap.
    case fit
    /// Written in another format than it came in (WebP to JPEG/PNG/GIF, PNG to JPEG, GIF to a still).
    case transcode
    /// Re-encoded at its own size and in its own format (an orientation, CMYK, the byte cap's quality).
    case reencode
    /// Written by the animated GIF encoder.
    case gifAnimation = "gif-anim"
    /// The byte cap was passed at least once: quality search, a smaller size, PNG to JPEG, a smaller GIF.
    case byteCapRetry = "bytecap-retry"
    /// An animation kept as its first frame.
    case firstFrame = "first-frame"
    case thumbnail
}

/// One case run: its description, the paths it took, what failed.
public struct CaseResult: Sendable {
    public var seed: UInt64
    public var description: String
    public var container: EngineCase.Container
    public var paths: Set<OutputPath> = []
    /// Empty when every check passed.
    public var failures: [String] = []
    /// The generated input and its file extension, to keep when the case fails.
    public var input: Data
    public var inputExtension: String
    public var steps: [String] = []
    public var seconds = 0.0
    /// The pixel comparisons' measurements, for reading a run's margins ("frame 0 jpeg grid: mean 1.2, cell 6.0").
    public var measurements: [String] = []
    /// The largest fraction of a grid tolerance used (mean or cell), 0 when no grid comparison ran.
    public var toleranceUsed = 0.0
    /// The output's size, when one was prepared.
    public var outputWidth = 0
    public var outputHeight = 0
}

/// Generative whole-engine fuzzing: a case from a seed (`EngineCase`), its frames
/// (`SourceFrames`), written as a file, through the caller's `prepare`; then the checks.
///
///     let result = EngineFuzz.run(seed: 7) { data, rules, limits in adapter(data, rules, limits) }
///     result.failures   // [] when every check passed
public enum EngineFuzz {
    /// Calls `prepare`'s per-item stage with the case's rules and engine limits.
    public typealias Prepare = (_ data: Data, _ rules: AppleRules, _ limits: ProcessingLimits) -> StageOutcome

    /// Pixel tolerances (levels of 255; see `PixelCheck` and docs/ROBUSTNESS.md).
    public enum Tolerance {
        /// Lossless output at the source's size, 8-bit source: no difference at all.
        public static let exact = 0
        /// A 16-bit PNG source: its samples are `v * 257 ± 100`, so rounding to 8 bits may move one level.
        public static let exactSixteenBit = 1
        /// Grid comparison, mean / largest cell: PNG (lossless, resampled; Lanczos rings and clips
        /// at hard alpha edges, up to ~4 levels of mean on dense binary-alpha blocks).
        public static let png = (mean: 6.0, cell: 32.0)
        /// JPEG output (quality down to the floor, 4:2:0), or a lossy input (JPEG, lossy WebP).
        public static let lossy = (mean: 8.0, cell: 48.0)
        /// A quantised GIF (libimagequant, dithered, 64 to 256 colours).
        public static let gif = (mean: 10.0, cell: 56.0)
    }

    /// The input file of `c`.
    public static func input(_ c: EngineCase, frames: [PixelBuffer]) throws -> (data: Data, fileExtension: String) {
        var r = CaseRandom(seed: c.seed ^ 0xC0DEC)
        switch c.container {
        case .jpeg:
            return (
                try CodecWriters.jpeg(
                    frames[0], orientation: c.orientation, quality: c.jpegQuality, progressive: c.progressive,
                    cmyk: c.cmyk,
                    gray: c.gray, subsampling: r.int(0...2)), "jpg"
            )
        case .png:
            return (
                PNGWriter.write(
                    frames[0], sixteenBit: c.sixteenBit, interlaced: c.interlaced, indexed: c.indexed, seed: c.seed),
                "png"
            )
        case .webp:
            return (try CodecWriters.webp(frames[0], lossless: c.lossless, quality: c.jpegQuality), "webp")
        case .webpAnimated:
            return (
                try CodecWriters.animatedWebP(
                    frames, durations: c.frameDurations, lossless: c.lossless, quality: c.jpegQuality),
                "webp"
            )
        case .gif, .gifAnimated:
            return (GIFWriter.write(frames, durations: c.frameDurations), "gif")
        }
    }

    /// Generates case `seed`, runs it through `prepare` and checks the outcome.
    ///
    /// - Parameter beforeRun: given the input, its file extension and the case's description
    ///   just before `prepare` runs (the fuzz target saves them, so a crash leaves them behind).
    public static func run(
        seed: UInt64, maxSide: Int = 4000, prepare: Prepare, beforeRun: ((Data, String, String) -> Void)? = nil
    ) -> CaseResult {
        let started = ContinuousClock.now
        let c = EngineCase(seed: seed, maxSide: maxSide)
        let frames = SourceFrames.make(c)
        var result: CaseResult
        do {
            let (data, ext) = try input(c, frames: frames)
            result = CaseResult(
                seed: seed, description: c.description, container: c.container, input: data, inputExtension: ext)
            let (rules, limits) = c.limits(inputBytes: data.count)
            result.description += " (input \(data.count) bytes, cap \(rules.imageByteCap))"
            beforeRun?(data, ext, result.description)
            let outcome = prepare(data, rules, limits)
            result.steps = outcome.steps + outcome.warnings.map { "warning: \($0)" }
            // A CMYK JPEG shows its CMYK through the decoder's default profile, not the RGB it was made from.
            let reference = c.cmyk && c.container == .jpeg ? [try CodecWriters.cmykReference(frames[0])] : frames
            check(outcome, c, frames: reference, input: data, rules: rules, limits: limits, into: &result)
        } catch {
            result = CaseResult(
                seed: seed, description: c.description, container: c.container, input: Data(), inputExtension: "bin")
            result.failures.append("the generator failed (a harness bug, not an engine finding): \(error)")
        }
        let elapsed = ContinuousClock.now - started
        result.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return result
    }

    // MARK: - Checks

    static func check(
        _ outcome: StageOutcome, _ c: EngineCase, frames: [PixelBuffer], input: Data, rules: AppleRules,
        limits: ProcessingLimits, into result: inout CaseResult
    ) {
        func fail(_ message: String) { result.failures.append(message) }
        guard outcome.prepared, let data = outcome.data, let format = outcome.format, let width = outcome.width,
            let height = outcome.height
        else {
            fail("not prepared: \(outcome.reason ?? "no reason")")
            return
        }
        (result.outputWidth, result.outputHeight) = (width, height)
        let upright = (width: frames[0].width, height: frames[0].height)
        let sourceFormat: MediaFormat =
            switch c.container {
            case .jpeg: .jpeg
            case .png: .png
            case .webp, .webpAnimated: .webp
            case .gif, .gifAnimated: .gif
            }

        // Paths.
        let joined = outcome.steps.joined(separator: "\n")
        if outcome.outputIsInput { result.paths.insert(.passthrough) }
        if !outcome.outputIsInput, (width, height) != upright { result.paths.insert(.fit) }
        if format != sourceFormat { result.paths.insert(.transcode) }
        if !outcome.outputIsInput, format == sourceFormat, (width, height) == upright { result.paths.insert(.reencode) }
        if joined.contains("encoded gif") { result.paths.insert(.gifAnimation) }
        if joined.contains("quality search") || joined.contains("shrunk to") || joined.contains("switching to jpeg")
            || (joined.contains("bytes after") && joined.contains("passed"))
        {
            result.paths.insert(.byteCapRetry)
        }
        if outcome.warnings.contains(where: { $0.contains("only the first frame is kept") }) {
            result.paths.insert(.firstFrame)
        }
        if outcome.thumbnail != nil { result.paths.insert(.thumbnail) }

        // Apple's limits and the run's.
        if ![.jpeg, .png, .gif].contains(format) { fail("output format \(format.rawValue) is not one iOS takes") }
        if data.count > AppleRules.standard.imageByteCap { fail("output \(data.count) bytes, over Apple's 10 MB") }
        if data.count > rules.imageByteCap {
            fail("output \(data.count) bytes, over the run's cap \(rules.imageByteCap)")
        }
        if width * height * 4 > rules.decodedBudget {
            fail("output \(width)x\(height) decodes to more than the memory budget \(rules.decodedBudget)")
        }
        // A GIF passed through keeps its size (the long side is a still's and an encode's limit).
        if !(outcome.outputIsInput && format == .gif), max(width, height) > limits.maxLongSide {
            fail("output \(width)x\(height) is over the long side \(limits.maxLongSide)")
        }
        if format == .gif, let n = outcome.frames, n > limits.maxAnimationFrames {
            fail("output GIF has \(n) frames, over the cap \(limits.maxAnimationFrames)")
        }
        if abs(width * upright.height - height * upright.width) > upright.width + upright.height {
            fail("output \(width)x\(height) does not keep the upright aspect of \(upright.width)x\(upright.height)")
        }
        if outcome.outputIsInput, data != input { fail("passed through, but the output is not the input") }

        // The passthrough decision, foretold from the rules.
        if c.container == .jpeg || c.container == .png {
            let fits =
                input.count <= rules.imageByteCap && max(upright.width, upright.height) <= limits.maxLongSide
                && upright.width * upright.height * 4 <= rules.decodedBudget
            let eligible = fits && (c.container == .png || (c.orientation == 1 && !c.cmyk))
            if eligible != outcome.outputIsInput {
                fail(eligible ? "within every limit but not passed through" : "passed through though it needs work")
            }
        }

        // `verify`'s word on what iOS does with the output as it is, under the run's rules. (Its
        // plan may still fit it: the run's long side is not the default one.)
        let verifier = Verifier(options: VerifyOptions(policy: AttachmentPolicy(rules: rules)))
        let report = verifier.verify(
            data: data, path: "output.\(format.fileExtension)", fileExtension: format.fileExtension)
        if report.iosVerdict != "accepted" {
            fail("verify says iOS would refuse it (\(report.iosErrorCode ?? 0)): \(report.reason ?? "")")
        }

        // Pixels.
        let decoded: [PixelBuffer]
        do { decoded = try PixelCheck.decodeFrames(data, format: format) } catch {
            fail("the output does not decode: \(error)")
            return
        }
        guard let first = decoded.first else { return fail("the output has no frame") }
        if first.width != width || first.height != height {
            fail("the output decodes at \(first.width)x\(first.height), the stage said \(width)x\(height)")
        }
        if format == .gif, let n = outcome.frames, n != decoded.count {
            fail("the stage says \(n) frames, the GIF has \(decoded.count)")
        }
        let isFirstFrameOnly = result.paths.contains(.firstFrame)
        let animatedOutput = format == .gif && !isFirstFrameOnly
        if animatedOutput, decoded.count != frames.count, c.container != .webpAnimated {
            fail("\(frames.count) frames in, \(decoded.count) out")
        }
        // WebPAnimEncoder may merge frames that end up identical; then only the first is compared.
        let pairs = animatedOutput && decoded.count == frames.count ? Array(zip(frames, decoded)) : [(frames[0], first)]
        let lossyInput = c.container == .jpeg || (sourceFormat == .webp && !c.lossless)
        var exactSoFar = true
        for (k, (source, output)) in pairs.enumerated() {
            // A GIF's alpha is made binary after the resize: the reference is resized, then made binary
            // (at the source's size, with no edge left to the output's choice).
            let sameSize = output.width == source.width && output.height == source.height
            let reference =
                format != .gif
                ? source
                : sameSize
                    ? PixelCheck.binaryAlpha(source, edgesAs: nil)
                    : PixelCheck.binaryAlpha(
                        PixelCheck.boxResize(source, width: output.width, height: output.height), edgesAs: output)
            if format == .gif, !sameSize {
                result.measurements.append("frame \(k): reference box-resized, then alpha made binary (edges as the output)")
            }
            // A GIF keeps exact colours while every frame so far has at most 255 (the transparent
            // entry is the 256th): pixels a frame leaves unchanged show what earlier, perhaps
            // quantised, frames wrote.
            exactSoFar = exactSoFar && maxColours(reference) <= 255
            let quantised = format == .gif && !outcome.outputIsInput && !(joined.contains("256 colours") && exactSoFar)
            if sameSize, !lossyInput, format != .jpeg, !quantised {
                let tolerance = c.container == .png && c.sixteenBit ? Tolerance.exactSixteenBit : Tolerance.exact
                let worst = PixelCheck.exact(reference, output)
                result.measurements.append("frame \(k) \(format.rawValue) exact: \(worst)")
                if worst > tolerance {
                    fail("frame \(k): lossless output differs by \(worst) levels (allowed \(tolerance))")
                }
                continue
            }
            let (mean, worst, cellSide) = PixelCheck.grid(reference, output)
            let limit = tolerance(format, lossyInput: lossyInput, cellSide: cellSide)
            result.measurements.append(
                String(format: "frame %d %@ grid: mean %.2f, cell %.1f", k, format.rawValue, mean, worst))
            result.toleranceUsed = max(result.toleranceUsed, mean / limit.mean, worst / limit.cell)
            if mean > limit.mean || worst > limit.cell {
                fail(
                    String(
                        format: "frame %d: pixels off: mean %.1f, worst cell %.1f (allowed %.0f / %.0f)", k, mean,
                        worst, limit.mean, limit.cell))
            }
        }

        // The thumbnail: within its box, like frame 0, a file iOS takes, and held to the attachment's
        // limits: never larger than the output, never over the run's byte cap.
        if let thumb = outcome.thumbnail, let side = limits.thumbnailSize {
            if thumb.data.count > rules.imageByteCap {
                fail("thumbnail of \(thumb.data.count) bytes is over the run's cap \(rules.imageByteCap)")
            }
            let report = Verifier().verify(
                data: thumb.data, path: "thumb.\(thumb.format.fileExtension)", fileExtension: thumb.format.fileExtension
            )
            if report.iosVerdict != "accepted" {
                fail("verify says iOS would refuse the thumbnail (\(report.iosErrorCode ?? 0)): \(report.reason ?? "")")
            }
            do {
                let image = try PixelCheck.decodeFrames(thumb.data, format: thumb.format)[0]
                if max(image.width, image.height) > side {
                    fail("thumbnail \(image.width)x\(image.height) over \(side)")
                }
                if image.width > width || image.height > height {
                    fail("thumbnail \(image.width)x\(image.height) is larger than the attachment's \(width)x\(height)")
                }
                let (mean, worst, cellSide) = PixelCheck.grid(frames[0], image)
                let limit = tolerance(thumb.format, lossyInput: lossyInput, cellSide: cellSide)
                result.measurements.append(
                    String(format: "thumbnail %@ grid: mean %.2f, cell %.1f", thumb.format.rawValue, mean, worst))
                result.toleranceUsed = max(result.toleranceUsed, mean / limit.mean, worst / limit.cell)
                if mean > limit.mean || worst > limit.cell {
                    fail(
                        String(
                            format: "thumbnail pixels off: mean %.1f, worst cell %.1f (allowed %.0f / %.0f)", mean,
                            worst, limit.mean, limit.cell))
                }
            } catch {
                fail("the thumbnail does not decode: \(error)")
            }
        } else if limits.thumbnailSize != nil {
            fail("a thumbnail was asked for and none was made")
        }
    }

    /// The grid tolerance of an output: its format's, plus `lossy` for a lossy input; all of it
    /// times 8 / the cell's shorter side when cells are narrower than 8 pixels (at most x4): there
    /// the means average little (a 3x3 JPEG is one 4:2:0 block of random colours; a 2-pixel-wide
    /// resize is all edge), so only gross errors are caught.
    static func tolerance(_ format: MediaFormat, lossyInput: Bool, cellSide: Int) -> (mean: Double, cell: Double) {
        let base = format == .gif ? Tolerance.gif : format == .jpeg ? Tolerance.lossy : Tolerance.png
        let small = min(4, max(1, 8 / Double(cellSide)))
        let extra = lossyInput ? Tolerance.lossy : (mean: 0, cell: 0)
        return ((base.mean + extra.mean) * small, (base.cell + extra.cell) * small)
    }

    /// Distinct opaque colours of a frame (to know whether a GIF could keep them exactly).
    static func maxColours(_ image: PixelBuffer) -> Int {
        var seen = Set<UInt32>()
        for p in 0..<(image.width * image.height) where image.bytes[p * 4 + 3] >= 128 {
            seen.insert(
                UInt32(image.bytes[p * 4]) << 16 | UInt32(image.bytes[p * 4 + 1]) << 8 | UInt32(image.bytes[p * 4 + 2]))
            if seen.count > 256 { break }
        }
        return seen.count
    }
}

/// Cases per output path (and per input container), for the closing line of a run.
public struct PathCounts: Sendable, CustomStringConvertible {
    public private(set) var paths: [OutputPath: Int] = [:]
    public private(set) var containers: [EngineCase.Container: Int] = [:]
    public private(set) var cases = 0
    public private(set) var failed = 0

    public init() {}

    public mutating func add(_ result: CaseResult) {
        add(paths: result.paths, container: result.container, failed: !result.failures.isEmpty)
    }

    /// Counts one case given by its parts (a case line read back from a worker process).
    public mutating func add(paths: Set<OutputPath>, container: EngineCase.Container, failed: Bool) {
        cases += 1
        if failed { self.failed += 1 }
        for path in paths { self.paths[path, default: 0] += 1 }
        containers[container, default: 0] += 1
    }

    /// The paths no case reached.
    public var missing: [OutputPath] { OutputPath.allCases.filter { (paths[$0] ?? 0) == 0 } }

    public var description: String {
        let p = OutputPath.allCases.map { "\($0.rawValue) \(paths[$0] ?? 0)" }.joined(separator: ", ")
        let k = EngineCase.Container.allCases.map { "\($0.rawValue) \(containers[$0] ?? 0)" }.joined(separator: ", ")
        return "\(cases) cases, \(failed) failed; paths: \(p); inputs: \(k)"
    }
}
