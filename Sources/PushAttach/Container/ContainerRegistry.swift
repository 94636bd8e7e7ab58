import Foundation
import SystemSupport

/// The containers open in this process, one per folder (keyed by its resolved path), shared by
/// every caller that writes into it: the container lock is per folder **per process**.
///
///     let use = try ContainerRegistry.shared.open(URL(fileURLWithPath: "out"))
///     defer { use.release() }
///     print(use.container.url)
///
/// The first `open` of a folder opens it (`Container.open` with `.sharedByProcesses`: creates
/// the folders, takes a shared `flock`, makes this process's own spool folder, removes the ones
/// of processes that died). Later ones, while any use is live, get the same `Container`. Other
/// processes' preparers may hold the folder at the same time; a batch run (`PushAttachBatch`) may not,
/// and is refused while any preparer holds it (and the reverse, `ContainerError.locked`). The
/// last `release` removes the spool folder and drops the lock.
package final class ContainerRegistry: @unchecked Sendable {
    /// The process's registry.
    package static let shared = ContainerRegistry()

    private let lock = NSLock()
    private var open: [String: (container: Container, users: Int)] = [:]

    package init() {}

    /// A use of the container at `folder` (created when missing); `release()` it when done.
    package func open(_ folder: URL) throws(ContainerError) -> ContainerUse { try open(.path(folder)) }

    /// A use of the container at `location`: a path (created when missing), or a folder already
    /// open, used as it is; `release()` it when done.
    package func open(_ location: FolderLocation) throws(ContainerError) -> ContainerUse {
        lock.lock()
        defer { lock.unlock() }
        let key: String
        switch location {
        case .path(let folder):
            let given = folder.standardizedFileURL.path
            key = Self.realPath(given) ?? given
        case .opened(let folder): key = folder.path
        }
        if let entry = open[key] {
            open[key] = (entry.container, entry.users + 1)
            return ContainerUse(container: entry.container, key: key, registry: self)
        }
        // Shared with other processes (replicas on one volume): see `Container.Access`.
        let container: Container
        switch location {
        case .path(let folder): container = try Container.open(at: folder, access: .sharedByProcesses)
        case .opened(let folder): container = try Container.open(root: folder, access: .sharedByProcesses)
        }
        let resolved = container.url.standardizedFileURL.path
        open[resolved] = (container, 1)
        return ContainerUse(container: container, key: resolved, registry: self)
    }

    /// Folders open now (tests).
    package var openCount: Int { lock.withLock { open.count } }

    fileprivate func release(_ key: String) {
        let closing: Container? = lock.withLock {
            guard let entry = open[key] else { return nil }
            if entry.users > 1 {
                open[key] = (entry.container, entry.users - 1)
                return nil
            }
            open[key] = nil
            return entry.container
        }
        guard let closing else { return }
        closing.removeSpoolFolder()
        closing.lock.release()
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// One caller's hold on a shared `Container`; released once, by `release()` or when it goes.
package final class ContainerUse: @unchecked Sendable {
    /// The open container.
    package let container: Container
    private let key: String
    private let registry: ContainerRegistry
    private let lock = NSLock()
    private var released = false

    fileprivate init(container: Container, key: String, registry: ContainerRegistry) {
        self.container = container
        self.key = key
        self.registry = registry
    }

    deinit { release() }

    /// Gives the use back. Safe to call more than once.
    package func release() {
        let first: Bool = lock.withLock {
            defer { released = true }
            return !released
        }
        if first { registry.release(key) }
    }
}

/// Where a preparation writes: a folder named by its path (the caller's choice: links on the way
/// are followed), or one already open (`DirectoryHandle`), used whatever its path names now.
package enum FolderLocation: Sendable {
    case path(URL)
    case opened(DirectoryHandle)
}
