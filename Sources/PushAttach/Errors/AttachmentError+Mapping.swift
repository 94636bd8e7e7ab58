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
            case .tooLarge: .tooLarge
            case .cancelled: .cancelled
            default: .downloadFailed
            }
        let code: UNErrorCode? = if case .tooLarge = error { .invalidFileSize } else { nil }
        self.init(kind: kind, url: url, errorCode: code, reason: error.description(naming: names),
            underlying: .fetch(error))
    }

    /// The error for a container that cannot be opened or written, naming settings as `names`
    /// spells them.
    package init(_ error: ContainerError, url: URL?, names: SettingNames = .library) {
        self.init(kind: .writeFailed, url: url, reason: error.description(naming: names), underlying: .container(error))
    }

    /// The error for an entry that was not prepared: rejected by the per-file check, or failed.
    package init(entry: ManifestEntry, cause: ItemFailure?, url: URL, names: SettingNames = .library) {
        switch cause {
        case .download(let error):
            self.init(error, url: url, names: names)
            warnings = entry.warnings
            return
        case .write(let error):
            self.init(error, url: url, names: names)
            reason = entry.reason ?? reason
            warnings = entry.warnings
            return
        case nil: break
        }
        let reason = entry.reason ?? "not prepared"
        let code = entry.unErrorCode
        let kind: Kind =
            switch entry.status {
            case .rejected: .rejected
            case .failed where code == .invalidFileSize: .tooLarge
            case .failed, .prepared: .processingFailed
            }
        self.init(kind: kind, url: url, errorCode: code, reason: reason, warnings: entry.warnings)
    }

    /// The calling task was cancelled.
    package static func cancelled(_ url: URL?) -> AttachmentError {
        AttachmentError(kind: .cancelled, url: url, reason: "cancelled before the item finished; nothing was written")
    }
}
