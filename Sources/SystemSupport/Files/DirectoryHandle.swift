import Foundation

/// An open folder: the only way PushAttach and the batch runner reach what is inside the container. Every name is
/// opened, created, renamed and removed relative to this descriptor (`openat`, `mkdirat`,
/// `renameat`, `unlinkat`) with `O_NOFOLLOW`, so a symbolic link planted inside the container
/// is refused with `ContainerError.unsafeEntry`, never followed.
///
///     let root = try DirectoryHandle(resolving: "/srv/out")    // the container may itself be a link
///     let images = try root.folder("Images", create: true)     // refuses Images -> /elsewhere
///     let fd = try images.openFile("x.jpg", .readOnly)         // refuses x.jpg -> /etc/passwd
///
/// The folder the user names is theirs to point anywhere: `init(resolving:)` resolves it once,
/// and from then on the descriptor is the container, whatever happens to the path. The handle
/// owns its descriptor and closes it when it goes.
package final class DirectoryHandle: Sendable {
    /// The folder's path, for messages only: nothing is reached through it.
    package let path: String
    package let descriptor: Int32

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Opens the folder at `path`, following links on the way and at the end (the path is the
    /// caller's choice).
    package convenience init(opening path: String) throws(ContainerError) {
        let fd = try SystemCall.open(path, .readOnly, .directory)
        self.init(descriptor: fd, path: path)
    }

    /// Resolves `path` once (`realpath`) and opens the result, which must then still be a folder
    /// and not a link. `path` is the resolved one.
    package convenience init(resolving path: String) throws(ContainerError) {
        let resolved = try SystemCall.resolvedPath(path)
        let fd: Int32
        do { fd = try SystemCall.open(resolved, .readOnly, [.directory, .noFollow]) } catch {
            // Swapped for a link between the two calls.
            if case .system(_, _, let code) = error, code == ELOOP || code == ENOTDIR,
                (try? SystemCall.status(atPath: resolved))?.kind == .directory
            {
                throw .unsafeEntry(path: resolved, found: .symbolicLink)
            }
            throw error
        }
        self.init(descriptor: fd, path: resolved)
    }

    deinit { try? SystemCall.close(descriptor, path: path) }

    /// `path/name`, for messages.
    package func path(of name: String) -> String { path.hasSuffix("/") ? path + name : path + "/" + name }

    /// The sub-folder `name`, created first (mode 0755, narrowed by the umask) when `create` is
    /// set and it is missing. A link there is refused; a file there is ENOTDIR.
    package func folder(_ name: String, create: Bool) throws(ContainerError) -> DirectoryHandle {
        let full = path(of: name)
        if create {
            do { try SystemCall.makeDirectory(in: descriptor, name, permissions: 0o755, path: full) } catch {
                guard case .system(_, _, EEXIST) = error else { throw error }
            }
        }
        do {
            let fd = try SystemCall.open(in: descriptor, name, .readOnly, [.directory, .noFollow], path: full)
            return DirectoryHandle(descriptor: fd, path: full)
        } catch {
            guard case .system(_, _, let code) = error, code == ELOOP || code == ENOTDIR else { throw error }
            let kind = try? SystemCall.status(in: descriptor, name, path: full).kind
            if kind == .symbolicLink { throw .unsafeEntry(path: full, found: .symbolicLink) }
            throw .system(call: create ? "mkdir" : "open", path: full, errno: ENOTDIR)
        }
    }

    /// Opens the file `name`, never through a link. Unless the file is new (`.exclusive`), it
    /// must be a regular file, and one written in place (write access without `.exclusive`) must
    /// have no other hard links: a pipe, a device or another name for some file elsewhere is
    /// refused with `unsafeEntry`. `reportingPath` names the file in errors (default: `path/name`).
    package func openFile(
        _ name: String, _ access: SystemCall.Access, _ options: SystemCall.OpenOptions = [], permissions: Int = 0,
        reportingPath: String? = nil
    ) throws(ContainerError) -> Int32 {
        try openFileWithStatus(name, access, options, permissions: permissions, reportingPath: reportingPath).fd
    }

    /// `openFile`, with the `fstat` it made (nil for a new file, `.exclusive`).
    package func openFileWithStatus(
        _ name: String, _ access: SystemCall.Access, _ options: SystemCall.OpenOptions = [], permissions: Int = 0,
        reportingPath: String? = nil
    ) throws(ContainerError) -> (fd: Int32, status: SystemCall.FileStatus?) {
        let full = reportingPath ?? path(of: name)
        let fd: Int32
        do {
            fd = try SystemCall.open(
                in: descriptor, name, access, options.union([.noFollow, .nonBlocking]), permissions: permissions,
                path: full)
        } catch {
            guard case .system(_, _, ELOOP) = error else { throw error }
            throw .unsafeEntry(path: full, found: .symbolicLink)
        }
        guard !options.contains(.exclusive) else { return (fd, nil) }
        do throws(ContainerError) {
            let info = try SystemCall.status(fd, path: full)
            guard info.kind == .regular else { throw .unsafeEntry(path: full, found: .specialFile) }
            if access != .readOnly, info.links > 1 {
                throw .unsafeEntry(path: full, found: .hardLinked(links: info.links))
            }
            return (fd, info)
        } catch {
            try? SystemCall.close(fd, path: full)
            throw error
        }
    }

    /// `openFile(name, .readOnly)`, or nil when there is no such name.
    package func openFileIfPresent(_ name: String) throws(ContainerError) -> Int32? {
        do { return try openFile(name, .readOnly) } catch {
            if case .system(_, _, ENOENT) = error { return nil }
            throw error
        }
    }

    /// What is at `name` (a link is reported as a link), or nil when nothing is.
    package func status(_ name: String) throws(ContainerError) -> SystemCall.FileStatus? {
        do { return try SystemCall.status(in: descriptor, name, path: path(of: name)) } catch {
            if case .system(_, _, ENOENT) = error { return nil }
            throw error
        }
    }

    /// Sets the modification time of `name` (never a link's target) to now.
    package func touch(_ name: String) throws(ContainerError) {
        try SystemCall.touch(in: descriptor, name, path: path(of: name))
    }

    /// Renames `from` over `to`, both in this folder. `reportingPath` names the file in errors.
    package func rename(_ from: String, to: String, reportingPath: String? = nil) throws(ContainerError) {
        try SystemCall.rename(in: descriptor, from, to: to, path: reportingPath ?? path(of: to))
    }

    /// Removes the file or link `name` (never a folder, never a link's target).
    package func remove(_ name: String) throws(ContainerError) {
        try SystemCall.unlink(in: descriptor, name, path: path(of: name))
    }

    /// The names in this folder, without `.` and `..`.
    package func names() throws(ContainerError) -> [String] { try SystemCall.names(in: descriptor, path: path) }

    /// Each name in this folder, one at a time (see `SystemCall.forEachName`).
    package func forEachName(_ body: (String) -> Void) throws(ContainerError) {
        try SystemCall.forEachName(in: descriptor, path: path, body)
    }

    /// Makes creates, renames and removals in this folder durable.
    package func sync() throws(ContainerError) { try SystemCall.sync(descriptor, path: path) }

    /// Throws EACCES / EROFS (as `access`) when this process cannot create names here.
    package func checkWritable() throws(ContainerError) { try SystemCall.checkWritable(in: descriptor, ".", path: path) }

    /// The folder holding the last component of `relative` ("Images/x.jpg", or "x.jpg"), reached
    /// one component at a time without following links, and that last component.
    package func walk(to relative: String) throws(ContainerError) -> (folder: DirectoryHandle, name: String) {
        var components = relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let name = components.popLast() else { throw .system(call: "open", path: path, errno: EISDIR) }
        var folder = self
        for component in components { folder = try folder.folder(component, create: false) }
        return (folder, name)
    }
}
