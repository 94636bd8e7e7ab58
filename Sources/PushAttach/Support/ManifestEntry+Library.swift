import Foundation
import MediaTypes
import SystemSupport

/// A manifest entry's recorded strings in the library's types, for every result built from
/// one (`BatchEntry`, `PreparedAttachment`, `AttachmentEvent`, `AttachmentError`).
extension ManifestEntry {
    /// `action`, as `verify` names it.
    package var plannedAction: AttachmentReport.Action? { action.flatMap(AttachmentReport.Action.init(rawValue:)) }
    /// `format`, when it names one.
    package var mediaFormat: MediaFormat? { format.flatMap(MediaFormat.init(rawValue:)) }
    /// `error_code`, decoded from an entry read back from a manifest (a batch's journal), when it
    /// is one of iOS's.
    package var recordedErrorCode: UNErrorCode? { errorCode.flatMap(UNErrorCode.init(rawValue:)) }
}
