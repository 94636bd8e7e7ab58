import Foundation
import SystemSupport
import MediaTypes
import Pipeline

/// A manifest entry's recorded strings in the library's types, for every result built from
/// one (`BatchEntry`, `PreparedAttachment`, `AttachmentEvent`, `AttachmentError`).
extension ManifestEntry {
    /// `action`, as `verify` names it.
    var plannedAction: AttachmentReport.Action? { action.flatMap(AttachmentReport.Action.init(rawValue:)) }
    /// `format`, when it names one.
    var mediaFormat: MediaFormat? { format.flatMap(MediaFormat.init(rawValue:)) }
    /// `error_code`, when it is one of iOS's.
    var unErrorCode: UNErrorCode? { errorCode.flatMap(UNErrorCode.init(rawValue:)) }
}
