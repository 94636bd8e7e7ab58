import Foundation
import MediaTypes
import PushAttach
import SystemSupport

/// A batch folder's `report.html`: one self-contained page showing every item of its
/// `manifest.json` (thumbnail or reason, status, sizes, type hint, transforms, warnings),
/// filterable by status and text, for a browser, offline. `AttachmentBatch` writes it at the end
/// with `options.writeReport`; this writes it for a folder whose batch is done.
///
///     let report = try BatchReport.write(folder: URL(fileURLWithPath: "out"))
///     report.url            // out/report.html
///     report.prepared       // 9
public struct BatchReport: Sendable, Hashable {
    /// Items the page shows at a time, unless its link asks for another count (`#per=50`, `#per=all`).
    public static let pageSize = ReportWriter.pageSize

    /// `folder/report.html`.
    public var url: URL
    /// Entries in the report (those of `manifest.json`).
    public var count: Int
    /// Entries prepared.
    public var prepared: Int
    /// Entries rejected.
    public var rejected: Int
    /// Entries failed.
    public var failed: Int
    /// The size of the page in bytes.
    public var bytes: Int

    /// Reads `folder/manifest.json` and writes `folder/report.html` over any earlier one,
    /// atomically. Memory stays flat however many entries there are.
    ///
    /// - Parameters:
    ///   - folder: the batch's folder.
    ///   - settingNames: how an error spells the setting it names (the command line gives its
    ///     flags: "re-run with --resume").
    /// - Throws: `AttachmentError` `.invalidArgument` when the folder has no `manifest.json` (no
    ///   batch finished there; the reason says whether one is running or was interrupted) or one
    ///   that is not a manifest; `.writeFailed` when the folder cannot be read or written.
    @discardableResult
    public static func write(folder: URL, settingNames: SettingNames = .library) throws(AttachmentError)
        -> BatchReport
    {
        do {
            return BatchReport(try ReportWriter.write(container: folder))
        } catch {
            switch error {
            case .container(let error): throw AttachmentError(error, url: nil, names: settingNames)
            case .noManifest, .unreadableManifest:
                throw AttachmentError(kind: .invalidArgument, reason: error.description)
            }
        }
    }

    init(_ written: ReportWriter.Written) {
        url = written.url
        count = written.count
        prepared = written.statuses[.prepared, default: 0]
        rejected = written.statuses[.rejected, default: 0]
        failed = written.statuses[.failed, default: 0]
        bytes = written.bytes
    }
}

/// Writes a batch folder's `manifest.json` from its journals: the shards' of a sharded batch
/// (`AttachmentBatch.Options.shard`), whose last shard to finish does this itself, or an
/// interrupted batch's. In input order, the last line of each item winning, through sorted runs
/// on disk: memory stays flat however many items there are.
///
///     let merged = try AttachmentMerge.run(folder: URL(fileURLWithPath: "/shared/out"))
///     merged.count          // every item of every shard
public struct AttachmentMerge: Sendable, Hashable {
    /// `folder/manifest.json`.
    public var manifest: URL
    /// Entries written.
    public var count: Int
    /// Entries prepared.
    public var prepared: Int
    /// Entries rejected.
    public var rejected: Int
    /// Entries failed.
    public var failed: Int
    /// What the merge noticed and went past: journal lines it could not read, a shard missing
    /// under `partial`.
    public var warnings: [String]

    /// Merges `folder`'s journals into `folder/manifest.json`, under the folder's lock.
    ///
    /// - Parameters:
    ///   - folder: the batch's folder.
    ///   - partial: merge what the journals hold even when a shard has no journal or has not
    ///     finished (its items are then missing from `manifest.json`).
    ///   - settingNames: how the error spells the setting it names (the command line gives its
    ///     flags: "merge with --partial").
    /// - Throws: `AttachmentError` `.writeFailed` (its `underlying` the `ContainerError`) for
    ///   journals of two shard counts, a shard not finished (without `partial`), the folder in
    ///   use by a batch, or not writable.
    @discardableResult
    public static func run(folder: URL, partial: Bool = false, settingNames: SettingNames = .library)
        throws(AttachmentError) -> AttachmentMerge
    {
        let merged: Manifest.Finalized
        do { merged = try Manifest.mergeContainer(dir: folder, partial: partial) } catch {
            throw AttachmentError(error, url: nil, names: settingNames)
        }
        return AttachmentMerge(
            manifest: folder.appendingPathComponent(Manifest.fileName), count: merged.count,
            prepared: merged.statuses[.prepared, default: 0], rejected: merged.statuses[.rejected, default: 0],
            failed: merged.statuses[.failed, default: 0], warnings: merged.warnings)
    }
}
