import Foundation
import ImageCodecs
import MediaTypes

/// Settings for `Verifier`: how deep to look, and the policy every file is judged by.
public struct VerifyOptions: Sendable {
    /// Decode every JPEG, PNG, WebP, GIF, HEIC and AVIF fully (the default); false checks headers only (`--fast`).
    public var decode = true
    /// Rules, pixel budget, strictness, damage and setting names: the same value `prepare` uses.
    public var policy = AttachmentPolicy()

    /// Full decode and the default policy unless given.
    public init(decode: Bool = true, policy: AttachmentPolicy = AttachmentPolicy()) {
        self.decode = decode
        self.policy = policy
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
    /// How strictly files are judged; see ``VerifyOptions``.
    public var options: VerifyOptions

    /// A verifier judging with `options`. It holds no state between files, so one value can
    /// verify many files, from any thread.
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
        let largestCap = max(options.policy.rules.imageByteCap, options.policy.rules.audioByteCap, options.policy.rules.movieByteCap)
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

    /// Verifies bytes already in memory. `fileExtension` is the name's extension: "" for a name
    /// without one (which iOS cannot type, so `prepare` renames it), nil when the bytes have no
    /// name (a download before it is written).
    ///
    /// The report is the plan `prepare` runs (`MediaCheck.plan`): identify (sniff, claims, rules),
    /// then for JPEG, PNG, WebP, GIF, HEIC and AVIF the pixel budget, orientation and a decode under
    /// the damage policy, then the engine's own passthrough and animation decisions.
    public func verify(data: Data, path: String, fileExtension: String?) -> FileReport {
        let policy = options.policy
        let seen = Sniffer.identify(prefix: Array(data.prefix(Sniffer.identifyPrefixLength)))
        var report = FileReport(
            path: path, verdict: "rejected", format: seen, uti: seen == .unknown ? nil : seen.uti,
            category: seen.category, bytes: data.count, width: nil, height: nil, frames: nil,
            errorCode: nil, reason: nil, warnings: [])
        // Under a strict policy the name's extension is a claim, as a URL's is to `prepare`, so a
        // mismatch is a refusal (101) in both. Lenient, the plan's own reason already says the
        // name is wrong ("prepare writes it as .jpg"), so no warning repeats it.
        var claims: [TypeClaim] = []
        if policy.strict, let fileExtension, !fileExtension.isEmpty { claims = [TypeClaim(.fileExtension, fileExtension)] }
        let planned = MediaCheck.plan(
            for: data, claims: claims, fileExtension: fileExtension, policy: policy, decode: options.decode)
        let (plan, id, inspection, rejection) = (
            planned.plan, planned.identification, planned.inspection, planned.rejection
        )
        report.action = plan.action
        report.outputFormat = plan.format
        report.iosVerdict = plan.asIs.verdict
        report.iosErrorCode = plan.asIs.code?.rawValue
        if let id {
            report.format = id.sniffed.format
            report.uti = id.sniffed.format.uti
            report.category = id.sniffed.format.category
            report.width = id.sniffed.width
            report.height = id.sniffed.height
            report.frames = id.sniffed.frames
            report.warnings += id.warnings
        }
        if let inspection {
            // Upright, as `prepare` records the source.
            (report.width, report.height) = inspection.orientation.uprightSize(
                width: inspection.width, height: inspection.height)
            report.warnings += inspection.warnings
        } else if rejection != nil, let id,
            case .success(let header?) = MediaCheck.inspectImage(data, sniffed: id.sniffed, policy: policy, decode: false)
        {
            // Refused for its data (damage), its header and metadata still read: upright too.
            (report.width, report.height) = header.orientation.uprightSize(width: header.width, height: header.height)
        }
        if let rejection { return report.rejecting(rejection) }
        report.verdict = plan.action.verdict
        report.errorCode = plan.code?.rawValue
        report.reason = plan.reason
        return report
    }

    // MARK: - Files that cannot be read whole

    private func oversized(prefix: [UInt8], size: Int, path: String, fileExtension: String) -> FileReport {
        let format = Sniffer.identify(prefix: Array(prefix.prefix(Sniffer.identifyPrefixLength)))
        let cap = format.category.map { options.policy.rules.byteCap(for: $0) } ?? options.policy.rules.movieByteCap
        return FileReport(
            path: path, verdict: "rejected", iosErrorCode: UNErrorCode.invalidFileSize.rawValue, format: format,
            uti: format == .unknown ? nil : format.uti, category: format.category, bytes: size, width: nil,
            height: nil, frames: nil, errorCode: UNErrorCode.invalidFileSize.rawValue,
            reason:
                "\(size) bytes is over the \(cap / 1_000_000) MB cap iOS sets for \(format.category?.rawValue ?? "any") attachments",
            warnings: [])
    }

    private func unreadable(path: String, message: String) -> FileReport {
        FileReport(
            path: path, verdict: "rejected", iosErrorCode: UNErrorCode.invalidURL.rawValue, format: .unknown, uti: nil,
            category: nil, bytes: 0, width: nil,
            height: nil,
            frames: nil, errorCode: UNErrorCode.invalidURL.rawValue, reason: message, warnings: [])
    }
}

extension FileReport {
    fileprivate func rejecting(_ rejection: CheckRejection) -> FileReport {
        var copy = self
        copy.verdict = "rejected"
        copy.errorCode = rejection.code?.rawValue
        copy.reason = rejection.reason
        copy.warnings += rejection.warnings.filter { !copy.warnings.contains($0) }
        if rejection.format != .unknown {
            copy.format = rejection.format
            copy.uti = rejection.format.uti
            copy.category = rejection.format.category
        }
        return copy
    }
}
