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
/// The report is the plan `prepare` carries out (`MediaCheck.plan`, `Planner.plan`), proven by a
/// decode of the image formats we decode (`MediaCheck.validate`), with what iOS would do with the
/// file as it is beside it.
public struct Verifier: Sendable {
    /// How strictly files are judged; see ``VerifyOptions``.
    public var options: VerifyOptions

    /// A verifier judging with `options`. It holds no state between files, so one value can
    /// verify many files, from any thread.
    public init(options: VerifyOptions = VerifyOptions()) { self.options = options }

    /// Reads the file and verifies it. A file over every cap is judged from its first megabyte,
    /// so a 10 GB file costs no more than a small one.
    public func verify(fileAt url: URL, displayPath: String? = nil) -> FileReport {
        let path = displayPath ?? url.path
        let policy = options.policy
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            let size = Int(try handle.seekToEnd())
            try handle.seek(toOffset: 0)
            if size > policy.largestInputCap {
                let prefix = try handle.read(upToCount: 1 << 20) ?? Data()
                let facts = MediaCheck.facts(
                    prefix: [UInt8](prefix), byteCount: size, claims: claims(url.pathExtension), fileExtension: url.pathExtension)
                let planned = MediaCheck.Planned(facts: facts, plan: Planner.plan(facts, policy: policy))
                return FileReport(planned, path: path, names: policy.settingNames)
            }
            let data = try handle.readToEnd() ?? Data()
            return verify(data: data, path: path, fileExtension: url.pathExtension)
        } catch {
            return FileReport(unreadable: path, reason: "cannot read the file: \(error.localizedDescription)")
        }
    }

    /// Verifies bytes already in memory. `fileExtension` is the name's extension: "" for a name
    /// without one (which iOS cannot type, so `prepare` renames it), nil when the bytes have no
    /// name (a download before it is written).
    public func verify(data: Data, path: String, fileExtension: String?) -> FileReport {
        let policy = options.policy
        var planned = MediaCheck.plan(data, claims: claims(fileExtension), fileExtension: fileExtension, policy: policy)
        if options.decode { planned = MediaCheck.validate(data, planned, policy: policy) }
        return FileReport(planned, path: path, names: policy.settingNames)
    }

    /// Under a strict policy the name's extension is a claim, as a URL's is to `prepare`, so a
    /// mismatch is a refusal (101) in both. Lenient, the plan's own reason already says the
    /// name is wrong ("prepare writes it as .jpg"), so no warning repeats it.
    private func claims(_ fileExtension: String?) -> [TypeClaim] {
        guard options.policy.strict, let fileExtension, !fileExtension.isEmpty else { return [] }
        return [TypeClaim(.fileExtension, fileExtension)]
    }
}
