import Foundation
import SystemSupport

extension AttachmentPreparer {
    /// Keeps a folder's pipeline open between calls: what `hold(_:)` returns. `release()` (or
    /// the hold's end of life) lets the pipeline stop once no call uses it.
    public final class FolderHold: Sendable {
        private let number: Int
        private let runners: FolderRunners

        init(number: Int, runners: FolderRunners) {
            self.number = number
            self.runners = runners
        }

        /// Lets the folder's pipeline stop when its last call returns (at once when none runs).
        /// A second call does nothing.
        public func release() { runners.unhold(number) }

        deinit { runners.unhold(number) }
    }

    /// Keeps `folder`'s pipeline (its download client, CPU and I/O threads, the folder's lock and
    /// spool) open until the hold is released, for a caller that prepares into one folder call
    /// after call, such as a server.
    ///
    ///     let hold = try preparer.hold(folder)
    ///     defer { hold.release() }
    ///     for url in urls { _ = try await preparer.prepare(url, into: folder) }
    ///
    /// Without a hold, the pipeline starts with the first call into the folder and stops when
    /// the last call in progress returns, so calls one at a time each start it anew: threads
    /// made, the folder locked and its spool swept, a cost of milliseconds on every call.
    /// `shutdown()` ends every hold.
    ///
    /// - Throws: `AttachmentError` of kind `.writeFailed` when the folder cannot be created or
    ///   locked, `.cancelled` after `shutdown()`.
    public func hold(_ folder: URL) throws(AttachmentError) -> FolderHold {
        try hold(.path(folder), url: folder)
    }

    /// `hold(_:)` of a folder already open (a cache's work folder).
    package func hold(_ folder: DirectoryHandle) throws(AttachmentError) -> FolderHold {
        try hold(.opened(folder), url: URL(fileURLWithPath: folder.path, isDirectory: true))
    }

    private func hold(_ folder: FolderLocation, url: URL) throws(AttachmentError) -> FolderHold {
        let number: Int?
        do { number = try runners.hold(folder) } catch {
            throw AttachmentError(error, url: url, names: configuration.policy.settingNames)
        }
        guard let number else {
            throw AttachmentError(
                kind: .cancelled, url: url,
                reason: "the preparer was shut down (AttachmentPreparer.shutdown()); the folder is not held")
        }
        return FolderHold(number: number, runners: runners)
    }
}
