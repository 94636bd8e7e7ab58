import Foundation
import MediaTypes
import SystemSupport
import Verification

/// Says whether iOS would accept a file as a notification attachment: the bytes decide the
/// type, Apple's rules the verdict, and a real decode of JPEG, PNG, WebP, HEIC and AVIF proves the data
/// whole, the same per-file check `AttachmentPreparer` makes.
///
///     let report = await AttachmentVerifier().verify(fileAt: URL(fileURLWithPath: "cat.jpg"))
///     if report.verdict == .accepted { print("ok", report.typeHint ?? "") }
///
/// The reads and decodes run on threads of their own, never on Swift's cooperative pool.
public struct AttachmentVerifier: Sendable {
    /// How files are judged: rules, pixel budget, strictness, damage, setting names. The same
    /// value as `AttachmentPreparer.Configuration.policy`, so the two agree on every file.
    public var policy: AttachmentPolicy
    /// Decode JPEG, PNG, WebP, HEIC and AVIF fully (the default); false checks headers only.
    public var decode: Bool

    /// A verifier with `policy` (iOS's rules, lenient, by default), decoding every image.
    ///
    ///     var policy = AttachmentPolicy()
    ///     policy.strict = true
    ///     let verifier = AttachmentVerifier(policy: policy)
    public init(policy: AttachmentPolicy = AttachmentPolicy(), decode: Bool = true) {
        self.policy = policy
        self.decode = decode
    }

    private var verifier: Verifier { Verifier(options: VerifyOptions(decode: decode, policy: policy)) }

    /// The verdict on the file at `url`. A file far over every cap is judged from its first
    /// megabyte; an unreadable one is `.rejected` with the reason.
    ///
    ///     let report = await AttachmentVerifier().verify(fileAt: URL(fileURLWithPath: "clip.mp4"))
    public func verify(fileAt url: URL) async -> AttachmentReport {
        let verifier = verifier
        return await Offload.plain.run { _ in AttachmentReport(verifier.verify(fileAt: url), path: url.path) }
    }

    /// The verdict on the file at `url`, on the calling thread: for a tool that runs its own
    /// threads (`pushattach verify` checks a batch of files at once on every core). A server
    /// calls the `async` `verify(fileAt:)`, which runs on the preparer's pool instead.
    ///
    /// - Parameters:
    ///   - url: the file to judge.
    ///   - displayPath: the path the report names (as the user typed it); `url.path` when nil.
    public func verifyBlocking(fileAt url: URL, displayPath: String? = nil) -> AttachmentReport {
        let path = displayPath ?? url.path
        return AttachmentReport(verifier.verify(fileAt: url, displayPath: path), path: path)
    }

    /// The verdict on bytes in memory. `fileExtension` is the name's extension they would be
    /// saved under ("" for a name without one, which iOS cannot type), nil when there is no name.
    ///
    ///     let report = await AttachmentVerifier().verify(data: bytes, fileExtension: "jpg")
    public func verify(data: Data, fileExtension: String?) async -> AttachmentReport {
        let verifier = verifier
        return await Offload.plain.run { _ in
            AttachmentReport(verifier.verify(data: data, path: "", fileExtension: fileExtension), path: nil)
        }
    }

}

extension AttachmentReport {
    /// `report` in the library's types, from the plan it renders.
    init(_ report: FileReport, path: String?) {
        let plan = report.plan
        verdict =
            switch plan?.action {
            case nil: .failed
            case .passThrough?: .accepted
            case .refuse?: .rejected
            default: .transcode
            }
        self.path = path
        errorCode = plan?.code
        refusal = plan?.refusal
        self.plan = plan
        reason = report.reason
        format = report.format
        typeHint = report.uti
        category = report.category
        recorded = report
        pixelSize = report.width.flatMap { w in report.height.map { PixelSize(width: w, height: $0) } }
        frames = report.frames
        byteCount = report.bytes
        warnings = report.warnings
        // The format the plan writes: an animated WebP becomes a GIF, a large JPEG stays JPEG.
        transcodeTarget = verdict == .transcode ? plan?.output : nil
        action = plan?.action ?? .refuse
        iosErrorCode = plan?.asIs.code
    }
}

