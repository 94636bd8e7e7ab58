import Foundation
import ImageCodecs
import MediaTypes

/// Settings for `Verifier`.
public struct VerifyOptions: Sendable {
    /// Decode every JPEG, PNG and WebP fully (the default); false checks headers only (`--fast`).
    public var decode = true
    /// Any codec warning, and any disagreement between the name and the bytes, is an error.
    public var strict = false
    /// Largest width x height we will decode (checked on the header before allocating pixels).
    public var pixelBudget = 50_000_000
    public var rules = AppleRules.standard

    public init(decode: Bool = true, strict: Bool = false, pixelBudget: Int = 50_000_000, rules: AppleRules = .standard) {
        self.decode = decode
        self.strict = strict
        self.pixelBudget = pixelBudget
        self.rules = rules
    }
}

/// Would iOS accept this file as a notification attachment, and if not, why?
///
///     let verifier = Verifier(options: VerifyOptions())
///     let report = verifier.verify(fileAt: URL(fileURLWithPath: "cat.webp"))
///     report.verdict  // "transcode"
///
/// The bytes decide the type; then Apple's rules (`AppleRules`) decide the verdict; then, for
/// the image formats we can decode, a real decode proves the file is not corrupt.
public struct Verifier: Sendable {
    public var options: VerifyOptions

    public init(options: VerifyOptions = VerifyOptions()) { self.options = options }

    /// Reads the file and verifies it. Files far over every cap are judged from their first
    /// megabyte, so a 10 GB file costs no more than a small one.
    public func verify(fileAt url: URL, displayPath: String? = nil) -> FileReport {
        let path = displayPath ?? url.path
        let size: Int
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        } catch {
            return unreadable(path: path, message: "cannot read the file's size: \(error.localizedDescription)")
        }
        let largestCap = max(options.rules.imageByteCap, options.rules.audioByteCap, options.rules.movieByteCap)
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            if size > largestCap {
                let prefix = try handle.read(upToCount: 1 << 20) ?? Data()
                return oversized(prefix: [UInt8](prefix), size: size, path: path, fileExtension: url.pathExtension)
            }
            let data = try handle.readToEnd() ?? Data()
            return verify(data: data, path: path, fileExtension: url.pathExtension)
        } catch {
            return unreadable(path: path, message: "cannot read the file: \(error.localizedDescription)")
        }
    }

    /// Verifies bytes already in memory. `fileExtension` is the name's extension (nil when the
    /// bytes have no name, e.g. a download before it is written).
    public func verify(data: Data, path: String, fileExtension: String?) -> FileReport {
        let bytes = [UInt8](data)
        var report = FileReport(
            path: path, verdict: "rejected", format: Sniffer.identify(prefix: Array(bytes.prefix(Sniffer.identifyPrefixLength))),
            uti: nil, category: nil, bytes: bytes.count, width: nil, height: nil, frames: nil,
            errorCode: nil, reason: nil, warnings: [])
        report.uti = report.format == .unknown ? nil : report.format.uti
        report.category = report.format.category

        // 1. What the bytes are, and what their header says.
        let sniffed: SniffedType
        do {
            sniffed = try Sniffer.sniff(bytes)
        } catch {
            return report.rejecting(.corrupt, "the \(report.format.rawValue) header is damaged: \(error)")
        }
        report.format = sniffed.format
        report.uti = sniffed.format == .unknown ? nil : sniffed.format.uti
        report.category = sniffed.format.category
        report.width = sniffed.width
        report.height = sniffed.height
        report.frames = sniffed.frames

        // 2. Apple's rules: type, size cap, extension, memory budget.
        let ext = fileExtension.flatMap { $0.isEmpty ? nil : $0 }
        if sniffed.format == .unknown, let ext, let named = Self.format(forExtension: ext) {
            // iOS takes the type from the name, then finds the content is not that type: corrupt.
            return namedButNot(named, data: data, report: report)
        }
        let assessment = options.rules.assess(sniffed, byteCount: bytes.count, fileExtension: ext)
        report.warnings += assessment.warnings
        if case .rejected(let code, let reason) = assessment.verdict, code == .invalidFileSize {
            return report.rejecting(code, reason)  // no point decoding what iOS refuses by size
        }

        // 3. Pixel budget on the header, then a real decode. Corruption outranks a wrong name.
        let pixels = inspectPixels(data, sniffed)
        report.warnings += pixels.warnings
        if let problem = pixels.problem {
            return report.rejecting(problem.code, problem.reason)
        }
        switch assessment.verdict {
        case .rejected(let code, let reason):
            return report.rejecting(code, reason)
        case .transcode(let target):
            report.verdict = assessment.verdict.name
            report.reason = "iOS does not accept \(sniffed.format.rawValue); prepare transcodes it to \(target.rawValue)"
        case .accepted:
            report.verdict = assessment.verdict.name
        }
        return report
    }

    // MARK: - Decoding

    private struct DecodeProblem {
        var code: UNErrorCode?
        var reason: String
        var warnings: [String] = []
    }

    /// Header dimensions through the codec, the pixel budget, then (unless `--fast`) one decode.
    /// Returns the problem that makes the file unusable, if any, and the codec's warnings.
    private func inspectPixels(_ data: Data, _ sniffed: SniffedType) -> (problem: DecodeProblem?, warnings: [String]) {
        if let w = sniffed.width, let h = sniffed.height, Self.exceeds(w, h, options.pixelBudget) {
            return (pixelBomb(w, h), [])
        }
        guard let codecFormat = Self.decodableFormats.first(where: { $0 == sniffed.format }) else { return (nil, []) }
        do {
            let info = try ImageCodecs.readInfo(data, format: codecFormat)
            if info.width == 0 || info.height == 0 {
                return (DecodeProblem(code: .corrupt, reason: "the header says the image is \(info.width)x\(info.height)"), [])
            }
            if Self.exceeds(info.width, info.height, options.pixelBudget) { return (pixelBomb(info.width, info.height), []) }
            guard options.decode else { return (nil, []) }
            let decoded = try ImageCodecs.decode(data, format: codecFormat, options: decodeOptions(for: codecFormat))
            if decoded.pixels.width == 0 || decoded.pixels.height == 0 {
                return (DecodeProblem(code: .corrupt, reason: "the image decodes to 0x0 pixels"), decoded.warnings)
            }
            // A truncated file decodes "successfully" with grey at the bottom: that is corrupt
            // in every mode. Other warnings only count in strict mode (the codec throws then).
            if let truncation = decoded.warnings.first(where: Self.isTruncationWarning) {
                return (DecodeProblem(code: .corrupt, reason: "the image data is cut short: \(truncation)"), [])
            }
            return (nil, decoded.warnings)
        } catch {
            return (codecProblem(error), [])
        }
    }

    /// JPEG is decoded at 1/8 scale: libjpeg still reads every entropy-coded bit (so damage
    /// shows up exactly as in a full decode) but skips most of the IDCT and the big buffer.
    private func decodeOptions(for format: MediaFormat) -> DecodeOptions {
        var decode = DecodeOptions()
        decode.pixelBudget = options.pixelBudget
        decode.strict = options.strict
        if format == .jpeg { decode.minimumSize = (width: 1, height: 1) }
        return decode
    }

    private func codecProblem(_ error: CodecError) -> DecodeProblem {
        switch error {
        case .pixelBudgetExceeded(let w, let h, _): return pixelBomb(w, h)
        case .unsupported(let codec, let message):
            return DecodeProblem(code: .unrecognizedType, reason: "\(codec) cannot decode this variant (\(message)); iOS is unlikely to show it either: re-encode it as baseline 8-bit")
        default:
            return DecodeProblem(code: .corrupt, reason: "corrupt: \(error)")
        }
    }

    private func pixelBomb(_ w: Int, _ h: Int) -> DecodeProblem {
        let mp = Double(w) * Double(h) / 1e6
        let budget = Double(options.pixelBudget) / 1e6
        return DecodeProblem(
            code: nil,
            reason: "\(w)x\(h) is \(String(format: "%.1f", mp)) MP, over the \(String(format: "%g", budget)) MP pixel budget; refused before decoding (raise it with --pixel-budget if the file is trusted)")
    }

    static let decodableFormats: [MediaFormat] = [.jpeg, .png, .webp]

    /// True when width x height passes `budget` (or overflows).
    static func exceeds(_ width: Int, _ height: Int, _ budget: Int) -> Bool {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow || pixels > budget
    }

    /// The format a file name's extension claims, if any.
    static func format(forExtension ext: String) -> MediaFormat? {
        let ext = ext.lowercased()
        return MediaFormat.allCases.first { $0 != .unknown && $0.allExtensions.contains(ext) }
    }

    /// Bytes we cannot identify under a name that claims `named`: iOS would reject them as
    /// corrupt (105). For formats we can decode, the codec's own message says what is wrong.
    private func namedButNot(_ named: MediaFormat, data: Data, report: FileReport) -> FileReport {
        var report = report
        report.format = named
        report.uti = named.uti
        report.category = named.category
        var detail = "its bytes are not \(named.displayName)"
        if Self.decodableFormats.contains(named) {
            do {
                _ = try ImageCodecs.readInfo(data, format: named)
            } catch {
                detail = "\(error)"
            }
        }
        return report.rejecting(.corrupt, "named as \(named.displayName) but damaged or not \(named.displayName) at all: \(detail)")
    }

    static func isTruncationWarning(_ message: String) -> Bool {
        let m = message.lowercased()
        return m.contains("premature end") || m.contains("truncated")
    }

    // MARK: - Files that cannot be read whole

    private func oversized(prefix: [UInt8], size: Int, path: String, fileExtension: String) -> FileReport {
        let format = Sniffer.identify(prefix: Array(prefix.prefix(Sniffer.identifyPrefixLength)))
        let cap = format.category.map { options.rules.byteCap(for: $0) } ?? options.rules.movieByteCap
        return FileReport(
            path: path, verdict: "rejected", format: format, uti: format == .unknown ? nil : format.uti,
            category: format.category, bytes: size, width: nil, height: nil, frames: nil,
            errorCode: UNErrorCode.invalidFileSize.rawValue,
            reason: "\(size) bytes is over the \(cap / 1_000_000) MB cap iOS sets for \(format.category?.rawValue ?? "any") attachments",
            warnings: [])
    }

    private func unreadable(path: String, message: String) -> FileReport {
        FileReport(
            path: path, verdict: "rejected", format: .unknown, uti: nil, category: nil, bytes: 0, width: nil, height: nil,
            frames: nil, errorCode: UNErrorCode.invalidURL.rawValue, reason: message, warnings: [])
    }
}

extension FileReport {
    fileprivate func rejecting(_ code: UNErrorCode?, _ reason: String) -> FileReport {
        var copy = self
        copy.verdict = "rejected"
        copy.errorCode = code?.rawValue
        copy.reason = reason
        return copy
    }
}
