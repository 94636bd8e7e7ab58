import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes

/// What `prepare` does with one file, decided before any pixel is fitted, and what iOS would
/// do with the file as it is. `verify` prints it; `prepare` records what it did in the same
/// words (`ManifestEntry.action`), and the two are tested to agree file by file.
///
///     let plan = MediaCheck.plan(for: data, fileExtension: "jpg", policy: AttachmentPolicy()).plan
///     plan.action     // .fit: a 4000x3000 photo is over the 2048 long side
///     plan.format     // .jpeg
///     plan.asIs       // .accepted: iOS itself would take the file
public struct AttachmentPlan: Sendable, Hashable {
    /// What `prepare` does with the file.
    public enum Action: String, Sendable, Hashable, CaseIterable {
        /// Written byte for byte, under the name it has.
        case passThrough = "pass-through"
        /// Written byte for byte, under the extension of its real type (its name's was wrong or missing).
        case rename
        /// A format iOS refuses (WebP, HEIC, AVIF), converted to JPEG or PNG.
        case convert
        /// A format iOS takes, re-encoded to fit the limits (byte cap, long side, decoded budget),
        /// turned upright, or turned from CMYK to RGB.
        case fit
        /// An animation re-encoded as an animated GIF (an animated WebP, a GIF over a limit).
        case reencodeAnimation = "reencode-animation"
        /// An animation over the frame or duration cap: its first frame, as a still.
        case firstFrame = "first-frame"
        /// Refused: nothing is written (`code`, `reason`).
        case refuse

        /// The verdict `verify` gives for it: `accepted` (sent unchanged), `transcode` (`prepare`
        /// changes the file or its name) or `rejected`.
        public var verdict: String {
            switch self {
            case .passThrough: "accepted"
            case .refuse: "rejected"
            case .rename, .convert, .fit, .reencodeAnimation, .firstFrame: "transcode"
            }
        }
    }

    /// What iOS does with the file as it is, before `prepare`.
    public enum AsIs: Sendable, Hashable {
        /// iOS takes the file unchanged, under its name.
        case accepted
        /// iOS refuses the file with this code (a WebP 101, over the cap 102, damaged 105).
        case rejected(UNErrorCode)

        /// "accepted" or "rejected".
        public var verdict: String {
            if case .rejected = self { return "rejected" }
            return "accepted"
        }

        /// The code iOS would refuse the file with; nil when it takes it.
        public var code: UNErrorCode? {
            if case .rejected(let code) = self { return code }
            return nil
        }
    }

    /// What `prepare` does.
    public var action: Action
    /// The format `prepare` writes: the input's own on a passthrough or a rename; JPEG, PNG or GIF
    /// otherwise; nil on a refusal. A still with an alpha channel whose pixels are all opaque may
    /// still come out as JPEG where PNG is foretold: opacity is known only once decoded.
    public var format: MediaFormat?
    /// On a refusal, the code `prepare` records (nil for refusals of this library's own: no size fits).
    public var code: UNErrorCode?
    /// Why the file is refused or changed, and what to do; nil on a passthrough.
    public var reason: String?
    /// What iOS does with the file as it is.
    public var asIs: AsIs

    /// A plan with every field given; normally made by `MediaCheck.plan`.
    public init(
        action: Action, format: MediaFormat?, code: UNErrorCode? = nil, reason: String? = nil, asIs: AsIs
    ) {
        self.action = action
        self.format = format
        self.code = code
        self.reason = reason
        self.asIs = asIs
    }

    /// The refusal `rejection` stands for.
    static func refuse(_ rejection: CheckRejection, asIs: AsIs) -> AttachmentPlan {
        AttachmentPlan(action: .refuse, format: nil, code: rejection.code, reason: rejection.reason, asIs: asIs)
    }
}

/// A plan with what it was made from: `MediaCheck.plan`'s answer.
public struct PlannedFile: Sendable {
    /// What `prepare` does, and what iOS does with the file as it is.
    public var plan: AttachmentPlan
    /// What the bytes are and what Apple's rules say; nil when they could not be identified.
    public var identification: Identification?
    /// For an image the engine decodes: its size, orientation and decode warnings; nil for
    /// other media and when a refusal came first.
    public var inspection: ImageInspection?
    /// The refusal, worded as `prepare` records it, when the identification or the inspection
    /// refused the bytes (the plan is then `.refuse`).
    public var rejection: CheckRejection?
}

extension MediaCheck {
    /// The plan for `data`: identify, the pixel budget, orientation and (with `decode`) a decode
    /// under the damage policy, then the engine's own decisions (`StillDecision`,
    /// `ImageProcessor.animationPlan`) read from the headers. `fileExtension`: the name's extension,
    /// "" for a name without one, nil for bytes without a name.
    ///
    ///     let planned = MediaCheck.plan(for: data, fileExtension: "webp", policy: AttachmentPolicy())
    ///     planned.plan.action   // .convert
    public static func plan(
        for data: Data, claims: [TypeClaim] = [], fileExtension: String?, policy: AttachmentPolicy, decode: Bool = true
    ) -> PlannedFile {
        let id: Identification
        switch identify(data, claims: claims, fileExtension: fileExtension, policy: policy) {
        case .failure(let rejection):
            let plan = AttachmentPlan.refuse(rejection, asIs: .rejected(rejection.code ?? .corrupt))
            return PlannedFile(plan: plan, identification: nil, inspection: nil, rejection: rejection)
        case .success(let identification): id = identification
        }
        let sniffed = id.sniffed
        let asIs = asIsVerdict(sniffed, byteCount: data.count, fileExtension: fileExtension, policy: policy)
        guard ImageProcessor.processedFormats.contains(sniffed.format) else {
            let plan = otherMedia(id, fileExtension: fileExtension, asIs: asIs, rules: policy.rules)
            return PlannedFile(plan: plan, identification: id)
        }
        let inspection: ImageInspection?
        switch inspectImage(data, sniffed: sniffed, policy: policy, decode: decode) {
        case .failure(let rejection):
            let code = rejection.code ?? .corrupt
            let plan = AttachmentPlan.refuse(rejection, asIs: asIs == .accepted ? .rejected(code) : asIs)
            return PlannedFile(plan: plan, identification: id, inspection: nil, rejection: rejection)
        case .success(let found): inspection = found
        }
        let format = sniffed.format
        if format == .gif || (format == .webp && sniffed.isAnimated) {
            do {
                let plan = try animationPlan(data, sniffed, fileExtension: fileExtension, asIs: asIs, policy: policy)
                return PlannedFile(plan: plan, identification: id, inspection: inspection)
            } catch {
                let rejection = self.rejection(for: error, format: format, policy: policy)
                return PlannedFile(
                    plan: .refuse(rejection, asIs: asIs), identification: id, inspection: inspection, rejection: rejection)
            }
        }
        guard let inspection else {
            let plan = otherMedia(id, fileExtension: fileExtension, asIs: asIs, rules: policy.rules)
            return PlannedFile(plan: plan, identification: id)
        }
        let plan = stillPlan(
            byteCount: data.count, sniffed, inspection, fileExtension: fileExtension, asIs: asIs, policy: policy)
        return PlannedFile(plan: plan, identification: id, inspection: inspection)
    }

    /// A GIF or an animated WebP: `AnimationPlan`, the decision `process` acts on, from the
    /// container's frame count, canvas and durations.
    private static func animationPlan(
        _ data: Data, _ sniffed: SniffedType, fileExtension: String?, asIs: AttachmentPlan.AsIs, policy: AttachmentPolicy
    ) throws(ProcessingError) -> AttachmentPlan {
        let format = sniffed.format
        switch try ImageProcessor.animationPlan(data, format: format, limits: policy.limits()) {
        case .passThrough:
            return sameBytes(format, fileExtension: fileExtension, asIs: asIs)
        case .encode(let why):
            let reason =
                format == .gif
                ? "prepare re-encodes the GIF to fit: \(why)"
                : "iOS does not accept \(format.displayName); prepare transcodes it to GIF"
            return AttachmentPlan(action: .reencodeAnimation, format: .gif, reason: reason, asIs: asIs)
        case .firstFrame(let why):
            let still: MediaFormat = sniffed.hasAlpha ?? false ? .png : .jpeg
            return AttachmentPlan(
                action: .firstFrame, format: still, reason: "only the first frame is kept, as \(still.displayName): \(why)",
                asIs: asIs)
        }
    }

    /// A still: `StillDecision`, the passthrough rule `process` acts on; else a fit (a format iOS
    /// takes) or a conversion (one it refuses), to JPEG, or PNG for a PNG or an image with alpha.
    private static func stillPlan(
        byteCount: Int, _ sniffed: SniffedType, _ inspection: ImageInspection, fileExtension: String?,
        asIs: AttachmentPlan.AsIs, policy: AttachmentPolicy
    ) -> AttachmentPlan {
        let format = sniffed.format
        let decision = StillDecision(
            format: format, byteCount: byteCount, stored: Size(width: inspection.width, height: inspection.height),
            orientation: inspection.orientation,
            isCMYK: inspection.colorSpace == "cmyk" || inspection.colorSpace == "ycck", limits: policy.limits())
        if decision.passThrough { return sameBytes(format, fileExtension: fileExtension, asIs: asIs) }
        let target: MediaFormat =
            format == .png ? .png : format == .jpeg ? .jpeg : (sniffed.hasAlpha ?? false ? .png : .jpeg)
        let others = decision.reasons.filter { !$0.hasPrefix("iOS does not accept") }
        if policy.rules.isAccepted(format) {
            return AttachmentPlan(
                action: .fit, format: target,
                reason: "prepare re-encodes it as \(target.displayName): \(others.joined(separator: "; "))", asIs: asIs)
        }
        let fits = others.isEmpty ? "" : " (\(others.joined(separator: "; ")))"
        return AttachmentPlan(
            action: .convert, format: target,
            reason: "iOS does not accept \(format.displayName); prepare transcodes it to \(target.displayName)\(fits)",
            asIs: asIs)
    }

    /// The bytes as they are: under their name, or renamed when its extension does not say the type.
    private static func sameBytes(_ format: MediaFormat, fileExtension: String?, asIs: AttachmentPlan.AsIs)
        -> AttachmentPlan
    {
        guard isRenamed(format, fileExtension: fileExtension) else {
            return AttachmentPlan(action: .passThrough, format: format, asIs: asIs)
        }
        return AttachmentPlan(action: .rename, format: format, reason: renameReason(format, fileExtension), asIs: asIs)
    }

    /// Audio, movies and image formats the engine does not decode: sent as they are when iOS
    /// takes the format and size, else refused with iOS's code.
    private static func otherMedia(
        _ id: Identification, fileExtension: String?, asIs: AttachmentPlan.AsIs, rules: AppleRules
    ) -> AttachmentPlan {
        let format = id.sniffed.format
        switch id.assessment.verdict {
        case .accepted:
            return sameBytes(format, fileExtension: fileExtension, asIs: asIs)
        case .transcode(let target):
            return AttachmentPlan(
                action: .refuse, format: nil, code: .unrecognizedType,
                reason: "\(format.displayName) needs transcoding to \(target.displayName), which this build cannot do",
                asIs: asIs)
        case .rejected(let code, let reason):
            // The name is `prepare`'s to fix: only a refusal for the bytes themselves stands.
            if code == .unrecognizedType, rules.isAccepted(format) {
                return AttachmentPlan(
                    action: .rename, format: format, reason: renameReason(format, fileExtension), asIs: asIs)
            }
            return AttachmentPlan(action: .refuse, format: nil, code: code, reason: reason, asIs: asIs)
        }
    }

    /// What iOS does with the bytes under their name, `prepare` aside: the rules' verdict; a
    /// format it refuses is 101 whether or not `prepare` can convert it.
    static func asIsVerdict(_ sniffed: SniffedType, byteCount: Int, fileExtension: String?, policy: AttachmentPolicy)
        -> AttachmentPlan.AsIs
    {
        switch policy.rules.assess(sniffed, byteCount: byteCount, fileExtension: fileExtension).verdict {
        case .accepted: .accepted
        case .transcode: .rejected(.unrecognizedType)
        case .rejected(let code, _): .rejected(code)
        }
    }

    /// True when the name's extension does not name `format` ("" counts: no extension); false
    /// for bytes without a name.
    ///
    ///     MediaCheck.isRenamed(.png, fileExtension: "jpg")   // true: prepare writes it as .png
    public static func isRenamed(_ format: MediaFormat, fileExtension: String?) -> Bool {
        guard let fileExtension else { return false }
        var ext = fileExtension.trimmingCharacters(in: .whitespaces).lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        return !format.allExtensions.contains(ext)
    }

    /// Why a file is renamed, with what to do when it is sent without `prepare`.
    static func renameReason(_ format: MediaFormat, _ fileExtension: String?) -> String {
        let ext = (fileExtension ?? "").trimmingCharacters(in: .whitespaces)
        let named =
            ext.isEmpty
            ? "the file has no extension" : "the file is named .\(ext) but its bytes are \(format.displayName)"
        return "\(named), and iOS goes by the extension: prepare writes it as .\(format.fileExtension) (rename it to .\(format.fileExtension) to send it as it is)"
    }
}
