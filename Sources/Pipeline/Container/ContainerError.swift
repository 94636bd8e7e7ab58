#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything that can go wrong at the container's file-system edge: writing attachment files,
/// the lock, and the manifest.
///
///     do { try AtomicWriter.write(data, to: url) }
///     catch { print(error) }   // "rename(2) failed for /c/Images/x.jpg: … — disk full: …"
public enum ContainerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A system call failed. `call` names it ("open", "write", "fsync", "rename", …).
    case system(call: String, path: String, errno: Int32)
    /// Another process holds the container's lock.
    case locked(path: String, holderPID: Int32?)
    /// A manifest or other container file could not be encoded or decoded.
    case encoding(path: String, reason: String)

    /// True when the whole run should stop (exit status 2): the disk is full or the container is
    /// not writable, so every later item would fail the same way.
    public var isFatal: Bool {
        switch self {
        case .system(_, _, let code): [ENOSPC, EDQUOT, EACCES, EPERM, EROFS].contains(code)
        case .locked: true
        case .encoding: false
        }
    }

    public var description: String {
        switch self {
        case let .system(call, path, code):
            let text = String(cString: strerror(code))
            return "\(call)(2) failed for \(path): \(text) (errno \(code)) — \(Self.advice(for: code))"
        case let .locked(path, pid):
            let holder = pid.map { "process \($0)" } ?? "another process"
            return "container is in use: \(holder) holds \(path) — wait for that run to finish, "
                + "or use another --container"
        case let .encoding(path, reason):
            return "cannot encode or decode \(path): \(reason)"
        }
    }

    private static func advice(for code: Int32) -> String {
        switch code {
        case ENOSPC, EDQUOT: "disk full: free some space, then re-run with --resume"
        case EACCES, EPERM, EROFS: "container not writable: fix its permissions or choose another --container"
        case ENOENT: "a folder on the way does not exist: create it or check the --container path"
        case ENOTDIR: "a file stands where a folder is expected: choose another --container"
        case EISDIR: "a folder stands where a file is expected: remove it or choose another --container"
        case EMFILE, ENFILE: "too many open files: raise the limit (ulimit -n) or lower the concurrency"
        case ENAMETOOLONG: "the path is too long: use a shorter --container path"
        case EIO: "the disk reported an I/O error: check the device"
        default: "check the container folder and try again"
        }
    }
}
