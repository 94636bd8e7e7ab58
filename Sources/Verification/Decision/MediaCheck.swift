import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes

/// Why a file is refused: the UNErrorCode iOS would give (nil for refusals of our own, such as
/// an image no size fits in the byte cap) and a reason that says what is wrong and what to do.
/// A reason names a setting as the library spells it (`AttachmentPolicy.pixelBudget`); the command
/// line shows the flag that sets it instead.
public struct CheckRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The code iOS would refuse the file with; `nil` for refusals of this library's own (no
    /// size fits the byte cap), which iOS would never see.
    public var code: UNErrorCode?
    /// What is wrong and what to do about it, one line, in the library's terms.
    public var reason: String
    /// What the bytes are, as far as they could be read.
    public var format: MediaFormat
    /// Notes gathered before the refusal (claims that disagreed, memory-budget notes), so a
    /// report of the refused file still shows them.
    public var warnings: [String] = []

    public var description: String { reason }
}

/// What the bytes are, and what Apple's rules say of them, before any decode.
public struct Identification: Sendable {
    /// What the bytes are and what their header states (size, frames, alpha).
    public var sniffed: SniffedType
    /// Apple's rules applied to `sniffed` and the file size: the verdict, its reason and the
    /// rules' warnings.
    public var assessment: Assessment
    /// Claims that disagreed with the bytes (lenient mode) or were not understood.
    public var claimWarnings: [String]

    /// The claims' warnings, then the rules' (the memory budget, an animation iOS flattens).
    public var warnings: [String] { claimWarnings + assessment.warnings }
}

/// The per-file decision, in the steps every caller takes in this order: `identify` (sniff,
/// claims, rules), then for images `inspectImage` (pixel budget, orientation, a decode under the
/// damage policy) or the engine's `process`, whose failures `rejection(for:)` words the same way.
///
///     let policy = AttachmentPolicy()
///     switch MediaCheck.identify(bytes, claims: [], fileExtension: "jpg", policy: policy) {
///     case .success(let id): print(id.assessment.verdict)   // .accepted
///     case .failure(let rejection): print(rejection.code, rejection.reason)
///     }
///
/// `Verifier` (and so `pushattach verify`) and the pipeline (`prepare`) are built on these
/// functions; neither has a rule of its own.
public enum MediaCheck {
    /// Sniffs `bytes`, reconciles the claims about them, and applies Apple's rules.
    ///
    /// - Parameters:
    ///   - claims: what the download said it was (`media_type`, Content-Type, URL extension).
    ///   - fileExtension: the name iOS will see, when there is one (a file on disk, an output).
    /// - Returns: the identification, or why the bytes are refused on sight: a damaged or
    ///   unknown header, or a claim that disagrees in strict mode. The rules' verdict (an
    ///   unaccepted type, a size over the cap, a wrong extension) is in the assessment: `verify`
    ///   lets a decode report damage first, `prepare` lets the engine fit an image to the caps.
    public static func identify(
        _ bytes: [UInt8], claims: [TypeClaim] = [], fileExtension: String?, policy: AttachmentPolicy
    ) -> Result<Identification, CheckRejection> {
        identify(window: bytes, byteCount: bytes.count, claims: claims, fileExtension: fileExtension, policy: policy)
    }

    /// `identify` over `Data` (a mapped file, a spooled download) without copying more of it
    /// than the format's facts need: audio and video are judged from their header
    /// (`Sniffer.headerWindow`) and their size, so a spooled movie is never read into memory; a
    /// JPEG from its segments up to the start of frame (`Sniffer.jpegHeaderWindow`, walked in
    /// place); other images and unknown bytes are read whole, as `identify(_:)` does. The
    /// result is `identify(_:)`'s on the whole file either way.
    ///
    ///     let id = MediaCheck.identify(mappedMovie, fileExtension: "mp4", policy: AttachmentPolicy())
    public static func identify(
        _ data: Data, claims: [TypeClaim] = [], fileExtension: String?, policy: AttachmentPolicy
    ) -> Result<Identification, CheckRejection> {
        // A 4 MB photo copied whole only to read its first kilobytes was over a third of `prepare`'s
        // page faults and most of its memmove (perf, Benchmarks/RESULTS.md run R).
        let prefix = [UInt8](data.prefix(16_384))
        let window =
            Sniffer.headerWindow(prefix: prefix)
            ?? (Sniffer.identify(prefix: prefix) == .jpeg ? data.withUnsafeBytes { Sniffer.jpegHeaderWindow($0) } : nil)
        guard let window, window < data.count else {
            return identify([UInt8](data), claims: claims, fileExtension: fileExtension, policy: policy)
        }
        return identify(
            window: [UInt8](data.prefix(window)), byteCount: data.count, claims: claims, fileExtension: fileExtension,
            policy: policy)
    }

    /// `identify` from the first `window.count` bytes of a file of `byteCount` bytes.
    private static func identify(
        window bytes: [UInt8], byteCount: Int, claims: [TypeClaim], fileExtension: String?, policy: AttachmentPolicy
    ) -> Result<Identification, CheckRejection> {
        let sniffed: SniffedType
        do {
            sniffed = try Sniffer.sniff(bytes)
        } catch {
            return .failure(
                CheckRejection(
                    code: .corrupt, reason: "the \(error.format.displayName) header is damaged: \(error)",
                    format: error.format))
        }
        // "" is a name without an extension, which iOS cannot type (the rules reject it); nil is
        // no name at all (a download, before it is written).
        let ext = fileExtension
        if sniffed.format == .unknown {
            // The name a file has on disk, or the one its URL gives a download: either way
            // iOS would type it by that extension and find the bytes are not that format.
            let name = ext ?? claims.first { $0.source == .urlExtension || $0.source == .fileExtension }?.value
            if let name, !name.isEmpty, let named = format(forExtension: name) {
                return .failure(namedButNot(named, bytes: bytes))
            }
            let first = bytes.prefix(16).map { $0 >= 0x20 && $0 < 0x7F ? Character(UnicodeScalar($0)) : "." }
            return .failure(
                CheckRejection(
                    code: .unrecognizedType,
                    reason:
                        "not media: the bytes (\"\(String(first))…\") are no format iOS knows; send \(AppleRules.acceptedList)",
                    format: .unknown))
        }
        let claimWarnings: [String]
        do {
            claimWarnings = try TypeReconciler.reconcile(sniffed.format, claims: claims, strict: policy.strict).warnings
        } catch {
            return .failure(
                CheckRejection(
                    code: .unrecognizedType,
                    reason:
                        "type mismatch: \(error); strict claims refuse it: correct the claim, or let the bytes decide",
                    format: sniffed.format))
        }
        var rules = policy.rules
        if isOverPixelBudget(sniffed, policy: policy) {
            // Refused as too large before any decode (`inspectImage`, the engine): advice on the
            // memory its decode would take would contradict that.
            rules.decodedBudget = .max
        }
        var assessment = rules.assess(sniffed, byteCount: byteCount, fileExtension: ext)
        assessment = animationAssessment(assessment, sniffed: sniffed, byteCount: byteCount, policy: policy)
        return .success(Identification(sniffed: sniffed, assessment: assessment, claimWarnings: claimWarnings))
    }

    /// The rules' assessment of an animation (a GIF, an animated WebP) corrected by what the
    /// engine will do with it (`AnimationPlan`, the decision `process` acts on):
    /// - an animated WebP is `transcode` to GIF, or, over the frame cap, to a still of its first
    ///   frame with a warning that says why;
    /// - a GIF over the byte cap is `transcode` to a smaller GIF (not a flat 102: `prepare` scales
    ///   it down), or, over the frame cap, to a still of its first frame;
    /// - a GIF iOS takes as it is stays `accepted`; a warning says when `prepare` would still
    ///   keep only its first frame.
    ///
    /// The header gives the frame count but not the duration: the duration cap is the engine's
    /// alone to apply (it reads the durations before decoding a frame).
    static func animationAssessment(
        _ assessment: Assessment, sniffed: SniffedType, byteCount: Int, policy: AttachmentPolicy
    ) -> Assessment {
        let format = sniffed.format
        guard format == .gif || (format == .webp && sniffed.isAnimated), let w = sniffed.width,
            let h = sniffed.height, !isOverPixelBudget(sniffed, policy: policy)
        else { return assessment }
        let plan = AnimationPlan.plan(
            format: format, byteCount: byteCount, width: w, height: h, frames: sniffed.frames,
            durationMilliseconds: nil, limits: policy.limits())
        let still: MediaFormat = sniffed.hasAlpha ?? false ? .png : .jpeg
        let frames = "animated \(format.displayName) (\(sniffed.frames ?? 0) frames)"
        // The rules' own note on WebP animations ("only the first frame survives") is replaced.
        var warnings = assessment.warnings.filter { !$0.hasPrefix("animated \(format.displayName) (") }
        if format == .webp {
            switch plan {
            case .firstFrame(let why):
                warnings.append("\(frames): only the first frame survives transcoding to \(still.displayName): \(why)")
                return Assessment(
                    verdict: .transcode(to: still),
                    reason: "WebP is not accepted by iOS; prepare will keep its first frame as \(still.displayName)",
                    warnings: warnings)
            case .encode, .passThrough:
                return Assessment(
                    verdict: .transcode(to: .gif),
                    reason: "WebP is not accepted by iOS; prepare will transcode the animation to an animated GIF",
                    warnings: warnings)
            }
        }
        switch (assessment.verdict, plan) {
        case (.rejected(.invalidFileSize, _), .encode):
            return Assessment(
                verdict: .transcode(to: .gif),
                reason:
                    "\(byteCount) bytes is over iOS's \(policy.rules.imageByteCap / 1_000_000) MB limit; prepare will scale the GIF down until it fits",
                warnings: warnings)
        case (.rejected(.invalidFileSize, _), .firstFrame(let why)):
            warnings.append("\(frames): only the first frame survives transcoding to \(still.displayName): \(why)")
            return Assessment(
                verdict: .transcode(to: still),
                reason:
                    "\(byteCount) bytes is over iOS's \(policy.rules.imageByteCap / 1_000_000) MB limit and too many frames to re-encode; prepare will keep its first frame as \(still.displayName)",
                warnings: warnings)
        case (.accepted, .firstFrame(let why)):
            warnings.append("\(frames): prepare would keep only the first frame, as \(still.displayName): \(why)")
            return Assessment(verdict: .accepted, warnings: warnings)
        default:
            return assessment
        }
    }

    /// For the formats the engine decodes (`ImageProcessor.processedFormats`, GIF included): the
    /// pixel budget, orientation metadata and a decode at the smallest scale under the damage
    /// policy (`ImageProcessor.inspect`; a GIF's every frame). Other formats succeed with nil.
    ///
    /// - Parameter decode: false checks headers only (`verify --fast`).
    public static func inspectImage(_ data: Data, sniffed: SniffedType, policy: AttachmentPolicy, decode: Bool = true)
        -> Result<ImageInspection?, CheckRejection>
    {
        guard ImageProcessor.processedFormats.contains(sniffed.format) else { return .success(nil) }
        do {
            // A zero or overflowing size never gets here: the engine refuses it as `.codec`.
            return .success(try ImageProcessor.inspect(data, sniffed: sniffed, limits: policy.limits(), decode: decode))
        } catch {
            return .failure(rejection(for: error, format: sniffed.format, policy: policy))
        }
    }

    /// The engine's failure worded as a rejection, the same for `verify` and `prepare`.
    public static func rejection(for error: ProcessingError, format: MediaFormat, policy: AttachmentPolicy) -> CheckRejection
    {
        switch error {
        case .damaged:
            return CheckRejection(code: .corrupt, reason: error.description(naming: policy.settingNames), format: format)
        case .codec(.pixelBudgetExceeded(let w, let h, _)):
            return pixelBomb(w, h, format: format, budget: policy.pixelBudget, names: policy.settingNames)
        case .codec(.unsupported(let codec, let message)):
            return CheckRejection(
                code: .unrecognizedType,
                reason:
                    "\(codec) cannot decode this variant (\(message)); iOS is unlikely to show it either: re-encode it as baseline 8-bit",
                format: format)
        case .codec(let codecError):
            return CheckRejection(
                code: .corrupt, reason: "corrupt \(format.displayName): \(codecError)", format: format)
        case .exif(let exifError):
            return CheckRejection(
                code: .corrupt,
                reason:
                    "the Exif block is malformed: \(exifError); strict checking refuses it (otherwise the image is treated as upright)",
                format: format)
        case .notDecodable, .cannotFit, .invalidLimits:
            return CheckRejection(code: nil, reason: "\(error)", format: format)
        }
    }

    /// The last step of `prepare`: the bytes about to be written, under the name they will have,
    /// are something iOS takes as they are.
    public static func checkOutput(_ output: Data, policy: AttachmentPolicy) -> CheckRejection? {
        let format = Sniffer.identify(prefix: [UInt8](output.prefix(Sniffer.identifyPrefixLength)))
        switch identify(output, fileExtension: format == .unknown ? nil : format.fileExtension, policy: policy) {
        case .failure(let rejection):
            return rejection
        case .success(let id):
            switch id.assessment.verdict {
            case .accepted: return nil
            case .transcode:
                return CheckRejection(
                    code: .unrecognizedType, reason: "the prepared file is still \(id.sniffed.format.displayName)",
                    format: id.sniffed.format)
            case .rejected(let code, let reason):
                return CheckRejection(code: code, reason: reason, format: id.sniffed.format)
            }
        }
    }

    /// An image whose header promises more pixels than the budget: "too large", never "corrupt",
    /// in `verify` and `prepare` alike, refused before any pixel memory is taken.
    ///
    /// The code is 102 (invalid file size). iOS checks only the bytes when it attaches a file,
    /// so it would take a 1 MB JPEG of 20000x14000; but neither the extension nor we can decode
    /// it to show it (1.1 GB of pixels), and 102 is the code iOS has for a file too large.
    static func pixelBomb(_ w: Int, _ h: Int, format: MediaFormat, budget: Int, names: SettingNames) -> CheckRejection {
        let budgetText = megapixels(Double(budget))
        var sizeText = megapixels(Double(w) * Double(h), decimals: 1)
        if sizeText == budgetText { sizeText = megapixels(Double(w) * Double(h)) }
        return CheckRejection(
            code: .invalidFileSize,
            reason:
                "too large: \(w)x\(h) is \(sizeText) MP, over the pixel budget of \(budgetText) MP; refused from its header, before decoding (raise \(names[.pixelBudget]) if the file is trusted)",
            format: format)
    }

    /// Pixels as megapixels: 280_000_000 as "280", 152_180_000 with one decimal as "152.2",
    /// 1_500 as "0.0015".
    static func megapixels(_ pixels: Double, decimals: Int? = nil) -> String {
        let mp = pixels / 1e6
        let text = decimals.map { String(format: "%.\($0)f", mp) } ?? String(format: "%.6f", mp)
        guard text.contains(".") else { return text }
        var trimmed = Substring(text)
        while trimmed.last == "0" { trimmed = trimmed.dropLast() }
        if trimmed.last == "." { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// True when the header's size is over the pixel budget of a format the engine decodes:
    /// such an image is refused as too large (`pixelBomb`) before it is decoded.
    static func isOverPixelBudget(_ sniffed: SniffedType, policy: AttachmentPolicy) -> Bool {
        guard ImageProcessor.processedFormats.contains(sniffed.format), let w = sniffed.width, let h = sniffed.height
        else { return false }
        return Double(w) * Double(h) > Double(policy.pixelBudget)
    }

    /// The format a file name's extension claims, if any.
    static func format(forExtension ext: String) -> MediaFormat? {
        let ext = ext.lowercased()
        return MediaFormat.allCases.first { $0 != .unknown && $0.allExtensions.contains(ext) }
    }

    /// Bytes we cannot identify under a name that claims `named`: iOS would reject them as
    /// corrupt (105). For formats we can decode, the codec's own message says what is wrong.
    static func namedButNot(_ named: MediaFormat, bytes: [UInt8]) -> CheckRejection {
        var detail = "its bytes are not \(named.displayName)"
        if ImageCodecs.decodableFormats.contains(named) {
            do {
                _ = try ImageCodecs.readInfo(Data(bytes), format: named)
            } catch {
                detail = "\(error)"
            }
        }
        return CheckRejection(
            code: .corrupt,
            reason: "named as \(named.displayName) but damaged or not \(named.displayName) at all: \(detail)",
            format: named)
    }
}
