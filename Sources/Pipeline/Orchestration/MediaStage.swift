import Foundation
import MediaTypes

/// What the sniff → reconcile → assess → engine stage made of one body.
struct MediaOutcome: Sendable {
    var status: ManifestEntry.Status
    var reason: String?
    /// The bytes to write (nil unless prepared).
    var data: Data?
    var format: MediaFormat?
    var width: Int?
    var height: Int?
    var frames: Int?
    var steps: [String] = []
    var warnings: [String] = []
    var thumbnail: (data: Data, format: MediaFormat)?
    var sha256: String?

    static func rejected(_ reason: String, format: MediaFormat? = nil, warnings: [String] = []) -> MediaOutcome {
        MediaOutcome(status: .rejected, reason: reason, format: format, warnings: warnings)
    }
}

/// The claims other than the bytes about what a download is.
struct MediaClaims: Sendable {
    var mediaType: String?
    var contentType: String?
    var urlExtension: String?

    var typeClaims: [TypeClaim] {
        var claims: [TypeClaim] = []
        if let mediaType { claims.append(TypeClaim(.mediaType, mediaType)) }
        if let contentType { claims.append(TypeClaim(.contentType, contentType)) }
        if let urlExtension { claims.append(TypeClaim(.urlExtension, urlExtension)) }
        return claims
    }
}

/// One per CPU thread: sniffs a body, reconciles its claims, assesses it against Apple's rules,
/// runs images through the engine, and hashes the result. Not thread-safe (the engine is not).
final class MediaStage {
    private let images: ImageStage
    private let rules: AppleRules
    private let strict: Bool

    init(options: PrepareOptions) {
        images = ImageStage(options: options)
        rules = options.rules
        strict = options.strict
    }

    func prepare(_ data: Data, claims: MediaClaims) -> MediaOutcome {
        let bytes = [UInt8](data)
        let sniffed: SniffedType
        do {
            sniffed = try Sniffer.sniff(bytes)
        } catch {
            return .rejected(
                "corrupt \(error.format.displayName): \(error); the file is damaged, send a complete one",
                format: error.format)
        }
        guard sniffed.format != .unknown, sniffed.format.category != nil else {
            let first = bytes.prefix(16).map { $0 >= 0x20 && $0 < 0x7F ? Character(UnicodeScalar($0)) : "." }
            return .rejected(
                "not media: the bytes (\"\(String(first))…\") are no format iOS knows; send \(MediaStage.acceptedList)")
        }
        var warnings: [String] = []
        do {
            warnings += try TypeReconciler.reconcile(sniffed.format, claims: claims.typeClaims, strict: strict).warnings
        } catch {
            return .rejected("type mismatch: \(error) (--strict makes this an error)", format: sniffed.format)
        }
        var outcome: MediaOutcome
        if ImageStage.handles(sniffed.format) {
            outcome = images.process(data, sniffed: sniffed)
        } else {
            outcome = passThrough(data, sniffed: sniffed)
        }
        outcome.warnings = warnings + outcome.warnings
        guard outcome.status == .prepared, let output = outcome.data else { return outcome }
        // The final word: what we write must be something iOS takes as it is.
        if let check = finalCheck(output) {
            return .rejected(check, format: outcome.format, warnings: outcome.warnings)
        }
        outcome.sha256 = SHA256.hexDigest(of: output)
        return outcome
    }

    /// Audio, video and GIF: written as they came when iOS accepts them.
    private func passThrough(_ data: Data, sniffed: SniffedType) -> MediaOutcome {
        let assessment = rules.assess(sniffed, byteCount: data.count, fileExtension: nil)
        switch assessment.verdict {
        case .accepted:
            return MediaOutcome(
                status: .prepared, data: data, format: sniffed.format, width: sniffed.width, height: sniffed.height,
                frames: sniffed.frames, steps: ["passed through \(sniffed.format.displayName)"],
                warnings: assessment.warnings)
        case .transcode(let target):
            return .rejected(
                "\(sniffed.format.displayName) needs transcoding to \(target.displayName), which this build cannot do",
                format: sniffed.format, warnings: assessment.warnings)
        case .rejected(_, let reason):
            return .rejected(reason, format: sniffed.format, warnings: assessment.warnings)
        }
    }

    private func finalCheck(_ output: Data) -> String? {
        guard let sniffed = try? Sniffer.sniff(output) else { return "the prepared file does not sniff back" }
        let assessment = rules.assess(sniffed, byteCount: output.count, fileExtension: sniffed.format.fileExtension)
        if case .rejected(_, let reason) = assessment.verdict { return reason }
        if case .transcode = assessment.verdict { return "the prepared file is still \(sniffed.format.displayName)" }
        return nil
    }

    static let acceptedList = "JPEG, PNG or GIF images, MP3, M4A, WAV or AIFF audio, or MP4, MPEG or AVI movies"
}
