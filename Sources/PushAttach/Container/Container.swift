import Foundation
import MediaTypes
import PushPayloads
import SystemSupport

/// The output folder of `pushattach prepare`: one sub-folder per category, locked for the
/// length of the run.
///
///     let container = try Container.open(at: URL(fileURLWithPath: "out"))
///     let name = AttachmentName(url: item.url, fileExtension: format.fileExtension, naming: .stable)
///     let relative = try container.write(bytes, named: name, category: .image)   // "Images/…-cat.jpg"
///
/// Opening creates `Images/`, `Audio/`, `Video/`, `Thumbnails/` and the spool folder `.spool/`
/// (large downloads, as they stream), takes the lock and then removes temporaries and spool
/// files a crashed or killed run left behind (only after the lock, so a live run's are safe).
///
/// The container folder itself may be a link (the user's choice): it is resolved once, at
/// `open`, and held open. Everything inside it is reached relative to that descriptor and the
/// folders' own, without following links: a symbolic link planted as a folder, the lock or the
/// journal is refused (`ContainerError.unsafeEntry`), a link at an attachment's name is
/// replaced, and nothing outside the container is ever written, appended to or removed.
package final class Container: Sendable {
    /// The container's resolved path (no links).
    package let url: URL
    package let lock: ContainerLock
    /// The container, open.
    package let root: DirectoryHandle
    /// Each folder, open since `open`.
    private let folders: [Folder: DirectoryHandle]
    /// `.spool/`: downloads too large to hold in memory are written here as they stream
    /// (`Fetch.Spool`), then renamed into their folder or removed.
    package let spool: DirectoryHandle
    /// The spool folder's name in the container: `.spool`, a slice's own `.spool.K-of-N`, or
    /// a library process's own `.spool.p-<random>` (`Access.sharedByProcesses`).
    package let spoolFolderName: String
    /// The lock on a private spool folder's owner file, held while the container is open: a
    /// folder whose owner file is not locked was abandoned by a process that died, and the next
    /// process to open the container removes it.
    private let spoolOwner: ContainerLock?
    /// The tag (`K-of-N`) of the slice of a sharded batch this process runs, when the container
    /// is shared by the slices.
    package let slice: String?

    /// The spool folder's name in an unsharded run's container.
    package static let spoolFolderName = ".spool"
    /// `.spool.<slice>`: the spool folder of a slice of a sharded batch.
    package static func spoolFolderName(slice: String) -> String { ".spool.\(slice)" }
    /// The owner file in a private spool folder (`spoolOwner`).
    package static let ownerFileName = ".owner"
    /// The prefix of a library process's private spool folder.
    package static let privateSpoolPrefix = ".spool.p-"

    /// How a process holds the container.
    package enum Access: Sendable, Hashable {
        /// A batch run, alone (an exclusive lock): it keeps the journal and the manifest, and
        /// removes what a crash left.
        case exclusive
        /// One slice of a sharded batch (its tag, `K-of-N`): shares the container with the
        /// other slices.
        case slice(String)
        /// A library preparer, in one of any number of processes writing into the container at
        /// once (replicas on one volume): a shared lock (no unsharded batch runs meanwhile), a
        /// spool folder of its own, and nothing of the others' touched. Files get unique names
        /// and appear whole (atomic renames), so the processes never collide. Shard runs take
        /// the main lock shared too, so they are not kept out: the last shard would then find
        /// the lock held and leave the merge to `pushattach merge`; do not mix the two. The
        /// volume must keep `flock` coherent across machines, or a live process's spool could
        /// look abandoned to another.
        case sharedByProcesses
    }
    /// The folder, relative to the container, for each kind of file.
    package enum Folder: String, Sendable, CaseIterable {
        case images = "Images", audio = "Audio", video = "Video", thumbnails = "Thumbnails"

        package init(_ category: MediaCategory) {
            switch category {
            case .image: self = .images
            case .audio: self = .audio
            case .movie: self = .video
            }
        }
    }

    private init(
        root: DirectoryHandle, lock: ContainerLock, folders: [Folder: DirectoryHandle], spool: DirectoryHandle,
        spoolFolderName: String, slice: String?, spoolOwner: ContainerLock?
    ) {
        self.spoolFolderName = spoolFolderName
        self.spoolOwner = spoolOwner
        self.slice = slice
        url = URL(fileURLWithPath: root.path, isDirectory: true)
        self.root = root
        self.lock = lock
        self.folders = folders
        self.spool = spool
    }

    /// Creates the container (`mkdir -p`) and resolves it, takes the lock, creates the folders,
    /// checks every folder is writable (EACCES / EROFS are fatal `ContainerError`s naming the
    /// folder) and removes stale temporaries. A link inside the container where the lock or a
    /// folder belongs is a fatal `unsafeEntry` naming it.
    ///
    /// With a `slice` (`K-of-N`), the container is shared with the other slices of a sharded
    /// batch, which may be writing into it right now: the slice's locks are taken
    /// (`ContainerLock(in:slice:)`), its spool folder is its own (`.spool.K-of-N`), and
    /// temporaries are left alone (they may be another slice's writes in flight; an unsharded
    /// run or the batch's merge removes stale ones).
    ///
    /// Shared by processes (`Access.sharedByProcesses`): a shared lock, a spool folder of the
    /// process's own (`.spool.p-<random>`, with a locked owner file), temporaries left alone,
    /// and the private spool folders of processes that died removed.
    package static func open(at url: URL, slice: String? = nil) throws(ContainerError) -> Container {
        try open(at: url, access: slice.map { .slice($0) } ?? .exclusive)
    }

    /// `open(at:slice:)`, for any way of holding the container.
    package static func open(at url: URL, access: Access) throws(ContainerError) -> Container {
        let given = url.standardizedFileURL
        try createFolder(given)
        return try open(root: try DirectoryHandle(resolving: given.path), access: access)
    }

    /// `open(at:access:)` of a folder already open (reached without following links, where the
    /// caller needs that: a folder inside a cache).
    package static func open(root: DirectoryHandle, access: Access) throws(ContainerError) -> Container {
        let lock: ContainerLock
        var sliceTag: String?
        switch access {
        case .exclusive: lock = try ContainerLock(in: root)
        case .slice(let tag):
            sliceTag = tag
            lock = try ContainerLock(in: root, slice: tag)
        case .sharedByProcesses: lock = try ContainerLock(sharedIn: root)
        }
        var folders: [Folder: DirectoryHandle] = [:]
        for folder in Folder.allCases { folders[folder] = try root.folder(folder.rawValue, create: true) }
        // A folder the run cannot write into fails every item of its kind: say so now, before
        // anything is downloaded, naming the folder.
        try root.checkWritable()
        for folder in Folder.allCases { try folders[folder]!.checkWritable() }
        let spoolName: String
        switch access {
        case .exclusive: spoolName = spoolFolderName
        case .slice(let tag): spoolName = Self.spoolFolderName(slice: tag)
        case .sharedByProcesses:
            spoolName = privateSpoolPrefix + String(UInt64.random(in: .min ... .max), radix: 16)
            removeAbandonedSpools(in: root)
        }
        let spool = try root.folder(spoolName, create: true)
        try spool.checkWritable()
        let owner = access == .sharedByProcesses ? try ContainerLock.spoolOwner(in: spool, fileName: ownerFileName) : nil
        let container = Container(
            root: root, lock: lock, folders: folders, spool: spool, spoolFolderName: spoolName, slice: sliceTag,
            spoolOwner: owner)
        if access == .exclusive { container.removeStaleTemporaries() }
        container.removeSpoolFiles()
        return container
    }

    /// Removes the private spool folders (`.spool.p-…`) of processes that died holding the
    /// container: each one whose owner file names a PID and is locked by nobody. A folder being
    /// set up (owner file not yet written) or in use is left alone.
    static func removeAbandonedSpools(in root: DirectoryHandle) {
        var candidates: [String] = []
        try? root.forEachName { name in if name.hasPrefix(privateSpoolPrefix) { candidates.append(name) } }
        for name in candidates {
            guard let folder = try? root.folder(name, create: false),
                ContainerLock.isAbandoned(folder, fileName: ownerFileName)
            else { continue }
            for file in (try? folder.names()) ?? [] { try? folder.remove(file) }
            try? SystemCall.removeDirectory(in: root.descriptor, name, path: root.path(of: name))
        }
    }

    /// False when the container's path names something else than the folder opened at `open` (it was
    /// renamed, or replaced by a link or another folder, during the run). Everything of the run
    /// is in the folder it opened, wherever that now is.
    package var isStillAtItsPath: Bool {
        guard let opened = try? SystemCall.status(root.descriptor, path: root.path),
            let named = try? SystemCall.status(atPath: root.path)
        else { return false }
        return opened.identity == named.identity
    }

    /// The absolute URL of `folder`.
    package func folderURL(_ folder: Folder) -> URL { url.appendingPathComponent(folder.rawValue) }

    /// Writes `data` atomically as `<folder>/<name.fileName>` and returns the path relative to
    /// the container, as the manifest records it.
    @discardableResult
    package func write(_ data: Data, named name: AttachmentName, in folder: Folder) throws(ContainerError) -> String {
        try AtomicWriter.write(data, in: handle(folder), name: name.fileName)
        return folder.rawValue + "/" + name.fileName
    }

    /// Removes the file `relative` (`Images/…`, as `write` returned it) if it is there: the
    /// name itself, never through a link. False when there was nothing to remove or `relative`
    /// is not a file in one of the folders (`ContainerPath`).
    @discardableResult
    package func removeFile(_ relative: String) -> Bool {
        guard ContainerPath.isValid(relative) else { return false }
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard let folder = Folder(rawValue: String(parts[0])) else { return false }
        return (try? handle(folder).remove(String(parts[1]))) != nil
    }

    private func handle(_ folder: Folder) -> DirectoryHandle { folders[folder]! }

    /// Moves the spooled download `name` (a file in `.spool/`, open as `descriptor`) to
    /// `<folder>/<name.fileName>` the way `write` lands a file: fsync, rename over the final
    /// name, fsync the folder. Returns the path relative to the container.
    package func moveSpooled(_ spooled: String, descriptor: Int32, named name: AttachmentName, in folder: Folder)
        throws(ContainerError) -> String
    {
        let target = handle(folder)
        let finalPath = target.path(of: name.fileName)
        try SystemCall.sync(descriptor, path: finalPath)
        try SystemCall.rename(in: spool.descriptor, spooled, into: target.descriptor, name.fileName, path: finalPath)
        try target.sync()
        return folder.rawValue + "/" + name.fileName
    }

    /// Removes every file in `.spool/`: what a run that was killed left there (only called
    /// with the lock held, so no live run's). Returns how many went.
    @discardableResult
    func removeSpoolFiles() -> Int {
        var removed = 0
        for name in (try? spool.names()) ?? [] where name != Self.ownerFileName && (try? spool.remove(name)) != nil {
            removed += 1
        }
        return removed
    }

    /// Removes `.spool/` at the end of a run, when it is empty (a file still there keeps it).
    package func removeSpoolFolder() {
        if let spoolOwner {
            // Empty but for the owner file: remove that, then let go of its lock.
            if ((try? spool.names()) ?? []) == [Self.ownerFileName] { try? spool.remove(Self.ownerFileName) }
            spoolOwner.release()
        }
        try? SystemCall.removeDirectory(in: root.descriptor, spoolFolderName, path: root.path(of: spoolFolderName))
    }

    /// Removes `.<name>.tmp-<hex>` files left in the container and its folders by a crash.
    /// Returns the names removed.
    @discardableResult
    package func removeStaleTemporaries() -> [String] {
        var removed: [String] = []
        for (prefix, folder) in [("", root)] + Folder.allCases.map({ ($0.rawValue + "/", handle($0)) }) {
            // Streamed: only the temporaries are kept, never the folder's million names.
            var temporaries: [String] = []
            try? folder.forEachName { name in if AtomicWriter.isTemporaryName(name) { temporaries.append(name) } }
            for name in temporaries.sorted() where (try? folder.remove(name)) != nil { removed.append(prefix + name) }
        }
        return removed
    }

    /// Removes attachment files no prepared entry refers to: on `--resume` with random names, a
    /// file written just before a crash, whose manifest line never made it, would otherwise stay
    /// behind. `keeping` holds paths relative to the container (`Images/…`). Returns the removed
    /// paths.
    ///
    ///     // in the batch runner (PushAttachBatch), resuming:
    ///     let resume = try Manifest.load(dir: container.url)
    ///     container.removeUnreferencedFiles(keeping: resume.referencedFiles)
    ///
    /// Only names directly in the folders opened at `open` are removed, each one itself
    /// (`unlinkat`): a link is removed, not its target, and a folder found there is left alone.
    @discardableResult
    package func removeUnreferencedFiles(keeping: Set<String>) -> [String] {
        removeUnreferencedFiles { keeping.contains($0) }
    }

    /// As `removeUnreferencedFiles(keeping:)`, asking `isReferenced` of each path (`Images/…`):
    /// the batch's resume index, which holds a digest per file instead of its name.
    @discardableResult
    package func removeUnreferencedFiles(isReferenced: (String) -> Bool) -> [String] {
        var removed: [String] = []
        for folder in Folder.allCases {
            let handle = handle(folder)
            // Streamed: a folder of a million prepared files is read name by name, and only the
            // unreferenced ones (left by an interrupted run: few) are kept, then removed.
            var unreferenced: [String] = []
            try? handle.forEachName { name in
                guard !name.hasPrefix("."), !isReferenced(folder.rawValue + "/" + name) else { return }
                unreferenced.append(name)
            }
            for name in unreferenced.sorted() {
                guard (try? handle.status(name))?.kind != .directory else { continue }
                if (try? handle.remove(name)) != nil { removed.append(folder.rawValue + "/" + name) }
            }
        }
        return removed
    }

    /// `mkdir -p` of the container as the user named it (links on the way are followed: the
    /// path is theirs), through the system-call wrapper so errors carry errno and advice.
    private static func createFolder(_ folder: URL) throws(ContainerError) {
        let path = folder.path
        if let info = try? SystemCall.status(atPath: path) {
            guard info.kind == .directory else { throw .system(call: "mkdir", path: path, errno: ENOTDIR) }
            return
        }
        do {
            try SystemCall.makeDirectory(path, permissions: 0o755)
        } catch {
            guard case let .system(_, _, code) = error else { throw error }
            switch code {
            case EEXIST:  // raced with another creator; or a link to nowhere, which stays an error
                guard (try? SystemCall.status(atPath: path))?.kind == .directory else { throw error }
            case ENOENT where folder.pathComponents.count > 1:
                try createFolder(folder.deletingLastPathComponent())
                try SystemCall.makeDirectory(path, permissions: 0o755)
            default: throw error
            }
        }
    }
}
