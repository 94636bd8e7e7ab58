import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive, non-blocking `flock` on `DIR/.pushattach.lock`, so two runs never write into
/// the same container. The holder's PID is written into the file for the refusal message.
///
///     let lock = try ContainerLock(directory: dir)   // throws .locked(path:holderPID:) if held
///     defer { lock.release() }
///
/// `flock` belongs to the open file description, so a second `ContainerLock` on the same
/// folder is refused even inside the same process. The kernel drops the lock when the process
/// dies, so a crashed run never leaves the container locked.
public final class ContainerLock: @unchecked Sendable {
    public static let fileName = ".pushattach.lock"

    public let path: String
    private let mutex = NSLock()
    private var fd: Int32

    public init(directory: URL) throws(ContainerError) {
        let path = directory.appendingPathComponent(Self.fileName).path
        self.path = path
        let fd = try SystemCall.run("open", path: path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        do {
            try SystemCall.run("flock", path: path) { flock(fd, LOCK_EX | LOCK_NB) }
        } catch {
            let code: Int32? = if case let .system(_, _, code) = error { code } else { nil }
            let holder = code == EWOULDBLOCK ? Self.readPID(fd) : nil
            _ = try? SystemCall.closeDescriptor(fd, path: path)
            if code == EWOULDBLOCK { throw .locked(path: path, holderPID: holder) }
            throw error
        }
        self.fd = fd
        let text = "\(getpid())\n"
        do throws(ContainerError) {
            try SystemCall.run("ftruncate", path: path) { ftruncate(fd, 0) }
            let bytes = Array(text.utf8)
            try SystemCall.run("pwrite", path: path) {
                bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            }
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    /// Drops the lock. Safe to call more than once.
    public func release() {
        mutex.lock()
        defer { mutex.unlock() }
        guard fd >= 0 else { return }
        _ = try? SystemCall.closeDescriptor(fd, path: path)
        fd = -1
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
