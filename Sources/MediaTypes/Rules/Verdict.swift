/// What iOS would do with a file, and what we can do about it.
///
///     Verdict.transcode(to: .jpeg).name  // "transcode"
public enum Verdict: Sendable, Hashable {
    /// iOS accepts the file as it is.
    case accepted
    /// iOS refuses the format, but `prepare` can turn it into `to`, which iOS accepts.
    case transcode(to: MediaFormat)
    /// iOS would refuse the file with this code, for this reason.
    case rejected(UNErrorCode, reason: String)

    /// "accepted" | "transcode" | "rejected", as in JSON output.
    public var name: String {
        switch self {
        case .accepted: "accepted"
        case .transcode: "transcode"
        case .rejected: "rejected"
        }
    }

    /// The code iOS would fail with when the verdict is `.rejected`; `nil` for `.accepted`
    /// and `.transcode`.
    public var errorCode: UNErrorCode? {
        if case .rejected(let code, _) = self { return code }
        return nil
    }
}

/// A verdict with the reason and warnings to show a person.
public struct Assessment: Sendable, Hashable {
    /// What iOS would do with the file: accept it, reject it with a code, or (after
    /// `prepare` transcodes it) accept a converted copy.
    public var verdict: Verdict
    /// Notes that do not change the verdict: decoded size over the decoded budget, lost animation...
    public var warnings: [String]

    /// Why the file is not accepted as it is, and what to do; `nil` when accepted.
    public var reason: String?

    /// `reason` defaults to the rejection's reason.
    public init(verdict: Verdict, reason: String? = nil, warnings: [String] = []) {
        self.verdict = verdict
        self.warnings = warnings
        if let reason {
            self.reason = reason
        } else if case .rejected(_, let why) = verdict {
            self.reason = why
        } else {
            self.reason = nil
        }
    }
}
