/// A claim that disagrees with the bytes.
///
///     // media_type "video" says movie, but the bytes are JPEG (image); using jpeg
///     print(mismatch)
public struct TypeMismatch: Error, Sendable, Hashable, CustomStringConvertible {
    /// The claim that disagrees, with where it was found and its raw value.
    public let claim: TypeClaim
    /// What the bytes are; this is what is used.
    public let sniffed: MediaFormat
    /// What the claim says, in words ("movie", "PNG").
    public let claimed: String

    /// A mismatch between `claim`, read as `claimed`, and the `sniffed` format. Normally made
    /// by ``TypeReconciler``.
    public init(claim: TypeClaim, sniffed: MediaFormat, claimed: String) {
        self.claim = claim
        self.sniffed = sniffed
        self.claimed = claimed
    }

    /// One line for people; the claim's value, which comes from outside, is escaped (`DisplayText`).
    public var description: String {
        let bytes =
            sniffed == .unknown
            ? "the bytes are not a format we recognise"
            : "the bytes are \(sniffed.displayName)\(sniffed.category.map { " (\($0.rawValue))" } ?? "")"
        return
            "\(claim.source.rawValue) \"\(DisplayText.escaped(claim.value))\" says \(claimed), but \(bytes); using \(sniffed.rawValue)"
    }
}
