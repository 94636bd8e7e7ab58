/// The outcome of checking claims against the bytes.
public struct Reconciliation: Sendable, Hashable {
    /// Always the sniffed format: the bytes win.
    public let format: MediaFormat
    /// One line per mismatch or unrecognised claim, for people.
    public let warnings: [String]
    /// The claims that disagree with the bytes, in the order the claims were given; empty
    /// when every claim agrees or carries no information.
    public let mismatches: [TypeMismatch]
    /// The claims that could not be read as a type at all.
    public let unreadable: [TypeClaim]

    /// An outcome with every field given; normally made by ``TypeReconciler``.
    public init(format: MediaFormat, warnings: [String], mismatches: [TypeMismatch], unreadable: [TypeClaim] = []) {
        self.format = format
        self.warnings = warnings
        self.mismatches = mismatches
        self.unreadable = unreadable
    }
}

/// The one place where what a file claims to be meets what its bytes are.
///
///     let r = try TypeReconciler.reconcile(.jpeg, claims: [TypeClaim(.mediaType, "video")], strict: false)
///     r.format     // .jpeg
///     r.warnings   // ["media_type \"video\" says movie, but the bytes are JPEG (image); using jpeg"]
///
/// Claims come from the payload's `media_type`, the HTTP Content-Type, the URL's extension and a
/// local file's extension. Empty values and `application/octet-stream` make no claim; a value we
/// cannot read is a warning, not a mismatch.
public enum TypeReconciler {
    /// - Throws: the first `TypeMismatch` when `strict` is true.
    public static func reconcile(_ sniffed: MediaFormat, claims: [TypeClaim], strict: Bool) throws(TypeMismatch)
        -> Reconciliation
    {
        var warnings: [String] = []
        var mismatches: [TypeMismatch] = []
        var unreadable: [TypeClaim] = []
        for claim in claims where !claim.isEmptyClaim {
            guard let hint = claim.hint else {
                unreadable.append(claim)
                warnings.append(
                    "unrecognised \(claim.source.rawValue) '\(DisplayText.escaped(claim.value))'; going by the bytes (\(sniffed.rawValue))"
                )
                continue
            }
            if hint.admits(sniffed) { continue }
            let mismatch = TypeMismatch(claim: claim, sniffed: sniffed, claimed: hint.summary)
            if strict { throw mismatch }
            mismatches.append(mismatch)
            warnings.append(mismatch.description)
        }
        return Reconciliation(format: sniffed, warnings: warnings, mismatches: mismatches, unreadable: unreadable)
    }
}
