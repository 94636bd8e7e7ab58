import Foundation
import MediaTypes
import PushAttach
import SystemSupport

/// Why `ReportWriter.write(container:)` wrote no report. Each case names the file at fault.
///
///     do { try ReportWriter.write(container: dir) }
///     catch { print(error) }   // "no manifest.json in /out: run 'pushattach prepare … --container /out' first"
package enum ReportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The container has no `manifest.json`. `journal` is true when it has a `manifest.jsonl`
    /// (a run was interrupted before the end, or is still going on).
    case noManifest(path: String, journal: Bool)
    /// `manifest.json` is not a manifest: not JSON, no `entries`, or an entry without the keys
    /// every entry has. `offset` is the byte where reading stopped.
    case unreadableManifest(path: String, offset: Int, reason: String)
    /// Reading the manifest or writing `report.html` failed at the file-system edge.
    case container(ContainerError)

    package var description: String { description(naming: .library) }

    /// The description, with the setting a file-system failure names spelled by `names`.
    package func description(naming names: SettingNames) -> String {
        switch self {
        case let .noManifest(path, journal):
            let folder = (path as NSString).deletingLastPathComponent
            return journal
                ? "no \(Manifest.fileName) in \(folder), only its journal: a run is going on or was interrupted; "
                    + "let it finish, or run 'pushattach prepare … --container \(folder) --resume' to finish it"
                : "no \(Manifest.fileName) in \(folder): run 'pushattach prepare … --container \(folder)' first"
        case let .unreadableManifest(path, offset, reason):
            return "\(path) is not a manifest pushattach can read (at byte \(offset)): \(reason)"
        case let .container(error):
            return error.description(naming: names)
        }
    }
}
