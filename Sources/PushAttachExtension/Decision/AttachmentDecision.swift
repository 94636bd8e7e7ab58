import Foundation
import MediaTypes

/// The one decision about a downloaded file, from what is known of it: its sniffed header, its
/// size, what the payload and the server claim. It accepts the file (with the type hint and
/// extension to give it) or refuses it with a typed reason. Nothing else in the extension
/// decides about a file: this is where a shared planner over the same facts takes over.
///
///     let facts = AttachmentDecision.Facts(sniffed: .success(jpeg), start: first64, byteCount: 13_275,
///                                          claims: [TypeClaim(.mediaType, "image")])
///     AttachmentDecision.decide(facts, rules: .standard)
///     // .accept(Accepted(format: .jpeg, typeHint: "public.jpeg", fileExtension: "jpg", warnings: []))
///
/// The bytes decide the type. iOS takes only what `AppleRules` accepts as it is, under its cap:
/// the extension converts nothing, so what `pushattach serve` or `prepare` would convert or
/// shrink is refused, with a reason that says they would.
enum AttachmentDecision {
    /// What is known of a downloaded file.
    struct Facts: Sendable {
        /// The header, or why it could not be trusted.
        var sniffed: Result<SniffedType, SniffError>
        /// The first bytes, to say what bytes that are no media look like.
        var start: [UInt8]
        var byteCount: Int
        /// What the payload and the download said the file is: `media_type` (or a serve link's
        /// `type=`), the Content-Type, the URL's extension. The bytes win; a claim that disagrees
        /// is a warning.
        var claims: [TypeClaim] = []
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

    static func decide(_ facts: Facts, rules: AppleRules) -> Outcome {
        let sniffed: SniffedType
        switch facts.sniffed {
        case .success(let value): sniffed = value
        case .failure(let error): return .refuse(.damaged(format: error.format, detail: error.description))
        }
        let format = sniffed.format
        guard let category = format.category, format != .unknown else {
            return .refuse(
                .notMedia(
                    looksLike: UnknownBytes.Kind(facts.start).phrase, start: UnknownBytes.start(of: facts.start)))
        }
        let assessment = rules.assess(sniffed, byteCount: facts.byteCount, fileExtension: nil)
        switch assessment.verdict {
        case .accepted:
            break
        case .transcode:
            return .refuse(.notAttachable(format: format, convertible: true))
        case .rejected(.invalidFileSize, _):
            return .refuse(.tooLarge(category: category, byteCount: facts.byteCount, cap: rules.byteCap(for: category)))
        case .rejected(.corrupt, let reason):
            return .refuse(.damaged(format: format, detail: reason))
        case .rejected:
            return .refuse(.notAttachable(format: format, convertible: false))
        }
        // Lenient: a claim that disagrees is reported, and the bytes are used.
        let claimWarnings = (try? TypeReconciler.reconcile(format, claims: facts.claims, strict: false).warnings) ?? []
        var warnings = claimWarnings + assessment.warnings
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
        let named = [facts.serveTypeHint] + facts.claims.filter { $0.source == .mediaType }.map(\.value)
        for candidate in named.compactMap({ $0?.trimmingCharacters(in: .whitespaces) }) {
            if let hint = TypeHint.parse(candidate), hint.form == .uti, !hint.formats.isEmpty, hint.admits(format) {
                return candidate
            }
        }
        return format.uti
    }
}
