import Foundation
import SystemSupport

/// An exclusive, non-blocking `flock` on `DIR/.pushattach.lock`, so two runs never write into
/// the same container. The holder's PID is written into the file for the refusal message.
///
///     let lock = try ContainerLock(directory: dir)   // throws .locked(path:holderPID:) if held
///     defer { lock.release() }
///
/// `flock` belongs to the open file description, so a second `ContainerLock` on the same
/// folder is refused even inside the same process. The kernel drops the lock when the process
/// dies, so a crashed run never leaves the container locked.
///
/// A slice of a sharded batch (its tag `K-of-N`) shares the container with the other slices: it
/// holds `.pushattach.lock` *shared* (so an unsharded run or a `merge` is refused while any slice
/// runs, and slices never exclude each other) and its own `.lock.K-of-N` exclusively (so one
/// slice never runs twice at once).
///
///     let lock = try ContainerLock(in: folder, slice: "2-of-4")
package final class ContainerLock: @unchecked Sendable {
    package static let fileName = ".pushattach.lock"

    /// The lock that says who holds the container: `.pushattach.lock`, or a shard's own.
    package let path: String
    private let mutex = NSLock()
    private var fd: Int32
    /// A shard's shared hold on `.pushattach.lock` (-1 for an exclusive lock).
    private var sharedFD: Int32 = -1
    private var sharedPath = ""

    /// Takes the lock of the folder at `directory` (following links to it: the caller's choice).
    package convenience init(directory: URL) throws(ContainerError) {
        try self.init(in: DirectoryHandle(opening: directory.path))
    }

    /// A slice's locks in the folder at `directory` (see `init(in:slice:)`).
    package convenience init(directory: URL, slice: String) throws(ContainerError) {
        try self.init(in: DirectoryHandle(opening: directory.path), slice: slice)
    }

    /// `.lock.<slice>`: the lock a slice of a sharded batch holds exclusively.
    package static func lockName(slice: String) -> String { ".lock.\(slice)" }

    /// Takes the lock of the open folder. The lock file is opened relative to it and never
    /// through a link (`unsafeEntry`), so a planted `.pushattach.lock -> victim` is refused
    /// instead of truncated.
    package convenience init(in directory: DirectoryHandle) throws(ContainerError) {
        try self.init(in: directory, fileName: Self.fileName)
    }

    private init(in directory: DirectoryHandle, fileName: String, waiting: Bool = false) throws(ContainerError) {
        let path = directory.path(of: fileName)
        self.path = path
        let fd = try directory.openFile(fileName, .readWrite, .create, permissions: 0o644)
        do {
            if waiting {
                try SystemCall.lockExclusiveWaiting(fd, path: path)
            } else {
                try SystemCall.lockExclusive(fd, path: path)
            }
        } catch {
            let code: Int32? = if case let .system(_, _, code) = error { code } else { nil }
            let holder = code == EWOULDBLOCK ? Self.readPID(fd, path: path) : nil
            try? SystemCall.close(fd, path: path)
            if code == EWOULDBLOCK { throw .locked(path: path, holderPID: holder) }
            throw error
        }
        self.fd = fd
        let bytes = Array("\(SystemCall.processID)\n".utf8)
        do throws(ContainerError) {
            try SystemCall.truncate(fd, to: 0, path: path)
            try SystemCall.writeAll(fd, bytes[...], at: 0, path: path)
        } catch {
            release()
            throw error
        }
    }

    /// A shared hold on the container's lock, for library preparers: any number of processes
    /// (replicas on one volume) hold it at once and write into the container side by side;
    /// while a batch run (`init(in:)`, exclusive) holds it, this is refused (`.locked`, naming
    /// the batch's PID), and a batch started meanwhile is refused.
    package init(sharedIn directory: DirectoryHandle) throws(ContainerError) {
        let (main, mainPath) = try Self.lockMainShared(in: directory)
        path = mainPath
        fd = -1
        sharedFD = main
        sharedPath = mainPath
    }

    /// `.pushattach.lock` opened and locked shared: its descriptor and path. `.locked` (with
    /// the PID written in it) while an exclusive holder has it.
    private static func lockMainShared(in directory: DirectoryHandle) throws(ContainerError) -> (Int32, String) {
        let mainPath = directory.path(of: fileName)
        let main = try directory.openFile(fileName, .readWrite, .create, permissions: 0o644)
        do {
            try SystemCall.lockShared(main, path: mainPath)
        } catch {
            let code: Int32? = if case let .system(_, _, code) = error { code } else { nil }
            let holder = code == EWOULDBLOCK ? readPID(main, path: mainPath) : nil
            try? SystemCall.close(main, path: mainPath)
            if code == EWOULDBLOCK { throw .locked(path: mainPath, holderPID: holder) }
            throw error
        }
        return (main, mainPath)
    }

    /// The owner lock of a private spool folder (`Container.ownerFileName`): exclusive, taken
    /// waiting (a cleaner holds it an instant to see whether the folder was abandoned), then
    /// this process's PID written, which marks the folder as owned.
    package static func spoolOwner(in directory: DirectoryHandle, fileName: String) throws(ContainerError) -> ContainerLock {
        try ContainerLock(in: directory, fileName: fileName, waiting: true)
    }

    /// Whether the private spool folder open as `directory` was abandoned: its owner file names
    /// a PID (its owner had locked it) and nobody holds its lock now (the owner is gone).
    package static func isAbandoned(_ directory: DirectoryHandle, fileName: String) -> Bool {
        guard let fd = try? directory.openFileIfPresent(fileName) else { return false }
        let path = directory.path(of: fileName)
        defer { try? SystemCall.close(fd, path: path) }
        guard (try? SystemCall.lockExclusive(fd, path: path)) != nil else { return false }
        return readPID(fd, path: path) != nil
    }

    /// Takes a slice's locks in the open folder: `.pushattach.lock` shared, then the slice's own
    /// (`lockName(slice:)`) exclusively. `.locked` names whichever is held: by an unsharded run or
    /// a merge (the container lock), or by another run of this very slice.
    package init(in directory: DirectoryHandle, slice: String) throws(ContainerError) {
        let (main, mainPath) = try Self.lockMainShared(in: directory)
        let own: ContainerLock
        do throws(ContainerError) {
            own = try ContainerLock(in: directory, fileName: Self.lockName(slice: slice))
        } catch {
            try? SystemCall.close(main, path: mainPath)
            throw error
        }
        // Take over the slice lock's descriptor: this object holds both.
        path = own.path
        fd = own.takeDescriptor()
        sharedFD = main
        sharedPath = mainPath
    }

    private func takeDescriptor() -> Int32 {
        mutex.withLock {
            defer { fd = -1 }
            return fd
        }
    }

    deinit { release() }

    /// Drops the lock. Safe to call more than once.
    ///
    /// Unlocks before closing: `flock` belongs to the open file description, which a child
    /// process another thread is spawning shares until its `exec` closes the descriptor
    /// (`O_CLOEXEC`), so a close alone could leave the lock held for that instant.
    package func release() {
        mutex.lock()
        defer { mutex.unlock() }
        if sharedFD >= 0 {
            try? SystemCall.unlock(sharedFD, path: sharedPath)
            try? SystemCall.close(sharedFD, path: sharedPath)
            sharedFD = -1
        }
        guard fd >= 0 else { return }
        try? SystemCall.unlock(fd, path: path)
        try? SystemCall.close(fd, path: path)
        fd = -1
    }

    private static func readPID(_ fd: Int32, path: String) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = (try? SystemCall.read(fd, into: &buffer, at: 0, path: path)) ?? 0
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
