import Fetch
import Foundation
import MediaTypes
import SystemSupport

extension AttachmentError {
    /// The error for a failed download, naming settings as `names` spells them.
    package init(_ error: FetchError, url: URL, names: SettingNames = .library) {
        let kind: Kind =
            switch error {
            case .invalidURL: .invalidURL
            case .unsupportedScheme, .hostNotAllowed, .addressRefused: .blocked
            case .cancelled: .cancelled
            default: .downloadFailed
            }
        self.init(kind: kind, url: url, reason: error.description(naming: names), underlying: .fetch(error))
    }

    /// The error for bytes refused for what they are (`Planner.plan`'s refusal): `.tooLarge` over
    /// a cap, `.rejected` otherwise, with the code iOS would give.
    package init(_ refusal: Refusal, url: URL?, names: SettingNames = .library, warnings: [String] = []) {
        let kind: Kind =
            switch refusal {
            case .overCap: .tooLarge
            case .noSizeFits: .processingFailed
            default: .rejected
            }
        self.init(
            kind: kind, url: url, errorCode: refusal.code, reason: refusal.description(naming: names), warnings: warnings)
        self.refusal = refusal
    }

    /// The error for a container that cannot be opened or written, naming settings as `names`
    /// spells them.
    package init(_ error: ContainerError, url: URL?, names: SettingNames = .library) {
        self.init(kind: .writeFailed, url: url, reason: error.description(naming: names), underlying: .container(error))
    }

    /// The error for an entry that was not prepared: refused by the plan, or failed.
    package init(entry: ManifestEntry, end: ItemEnd, url: URL, names: SettingNames = .library) {
        switch end {
        case .refused(let refusal):
            self.init(refusal, url: url, names: names, warnings: entry.warnings)
        case .failed(.download(let error)):
            self.init(error, url: url, names: names)
            warnings = entry.warnings
        case .failed(.write(let error)):
            self.init(error, url: url, names: names)
            reason = entry.reason ?? reason
            warnings = entry.warnings
        case .failed(.read):
            self.init(kind: .downloadFailed, url: url, reason: entry.reason ?? "not read", warnings: entry.warnings)
        case .failed(.input):
            self.init(kind: .invalidArgument, url: url, reason: entry.reason ?? "not a valid request", warnings: entry.warnings)
        case .failed(.settings), .prepared:
            self.init(kind: .processingFailed, url: url, reason: entry.reason ?? "not prepared", warnings: entry.warnings)
        }
    }

    /// The calling task was cancelled.
    package static func cancelled(_ url: URL?) -> AttachmentError {
        AttachmentError(kind: .cancelled, url: url, reason: "cancelled before the item finished; nothing was written")
    }
}
