import Foundation

/// An exclusive, non-blocking `flock` on `DIR/.pushattach.lock`, so two runs never write into
/// the same container. The holder's PID is written into the file for the refusal message.
///
///     let lock = try ContainerLock(directory: dir)   // throws .locked(path:holderPID:) if held
///     defer { lock.release() }
///
/// `flock` belongs to the open file description, so a second `ContainerLock` on the same
/// folder is refused even inside the same process. The kernel drops the lock when the process
/// dies, so a crashed run never leaves the container locked.
package final class ContainerLock: @unchecked Sendable {
    package static let fileName = ".pushattach.lock"

    package let path: String
    private let mutex = NSLock()
    private var fd: Int32

    /// Takes the lock of the folder at `directory` (following links to it: the caller's choice).
    package convenience init(directory: URL) throws(ContainerError) {
        try self.init(in: DirectoryHandle(opening: directory.path))
    }

    /// Takes the lock of the open folder. The lock file is opened relative to it and never
    /// through a link (`unsafeEntry`), so a planted `.pushattach.lock -> victim` is refused
    /// instead of truncated.
    init(in directory: DirectoryHandle) throws(ContainerError) {
        let path = directory.path(of: Self.fileName)
        self.path = path
        let fd = try directory.openFile(Self.fileName, .readWrite, .create, permissions: 0o644)
        do {
            try SystemCall.lockExclusive(fd, path: path)
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

    deinit { release() }

    /// Drops the lock. Safe to call more than once.
    package func release() {
        mutex.lock()
        defer { mutex.unlock() }
        guard fd >= 0 else { return }
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
