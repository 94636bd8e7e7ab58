import Foundation
import MediaTypes

/// The extension's decision about a downloaded file: the shared planner's (`Planner.plan`, the
/// one `prepare`, `verify` and `serve` carry out), read as the extension must read it. The
/// extension converts and shrinks nothing, so it keeps a file exactly when iOS takes it as it
/// is, under the extension of its real type (`Plan.asIs`); what the planner refuses is refused
/// for the same reason; what `prepare` or `serve` would convert or fit is refused as needing
/// that.
///
///     let facts = AttachmentDecision.Facts(media: MediaFacts(window: head, byteCount: 13_275, claims: claims))
///     AttachmentDecision.decide(facts, policy: AttachmentDecision.policy(for: .standard))
///     // .accept(Accepted(format: .jpeg, typeHint: "public.jpeg", fileExtension: "jpg", warnings: []))
enum AttachmentDecision {
    /// What is known of a downloaded file.
    struct Facts: Sendable {
        /// The one sniff of its header window, its size and the claims about it (the payload's
        /// `media_type` or a serve link's `type=`, the Content-Type, the URL's extension).
        var media: MediaFacts
        /// `X-Attachment-Type-Hint` from `pushattach serve`: the UTI it prepared the file as.
        var serveTypeHint: String?
    }

    /// A file iOS takes as it is.
    struct Accepted: Sendable, Hashable {
        var format: MediaFormat
        /// The UTI for `UNNotificationAttachmentOptionsTypeHintKey`.
        var typeHint: String
        /// The extension the file is named with.
        var fileExtension: String
        var warnings: [String]
    }

    enum Outcome: Sendable, Hashable {
        case accept(Accepted)
        case refuse(AttachmentRefusal)
    }

    /// The policy the extension plans by: Apple's `rules`, and nothing taken in over iOS's own
    /// caps (the extension shrinks nothing).
    static func policy(for rules: AppleRules) -> AttachmentPolicy {
        AttachmentPolicy(rules: rules, imageInputCap: rules.imageByteCap)
    }

    static func decide(_ facts: Facts, policy: AttachmentPolicy) -> Outcome {
        let plan = Planner.plan(facts.media, policy: policy)
        if let refusal = plan.refusal { return .refuse(.refused(refusal)) }
        let format = facts.media.format
        guard plan.asIs == .accepted else {
            return .refuse(.needsPreparing(format: format, action: plan.action, iosCode: plan.asIs.code))
        }
        var warnings = plan.notes.map(\.description)
        if let served = facts.serveTypeHint, !(TypeHint.parse(served)?.admits(format) ?? false) {
            warnings.append(
                "X-Attachment-Type-Hint \"\(DisplayText.escaped(served))\" disagrees with the bytes (\(format.displayName)); using \(format.uti)"
            )
        }
        return .accept(
            Accepted(
                format: format, typeHint: typeHint(for: format, facts: facts), fileExtension: format.fileExtension,
                warnings: warnings))
    }

    /// The UTI to pass iOS: serve's header or the payload's `media_type` when it is a UTI naming
    /// this format (`public.mpeg-2-video` says more than the format's `public.mpeg`), else the
    /// format's own.
    private static func typeHint(for format: MediaFormat, facts: Facts) -> String {
        let named = [facts.serveTypeHint] + facts.media.claims.filter { $0.source == .mediaType }.map(\.value)
        for candidate in named.compactMap({ $0?.trimmingCharacters(in: .whitespaces) }) {
            if let hint = TypeHint.parse(candidate), hint.form == .uti, !hint.formats.isEmpty, hint.admits(format) {
                return candidate
            }
        }
        return format.uti
    }
}
