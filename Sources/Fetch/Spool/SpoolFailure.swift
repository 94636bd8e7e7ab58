import Foundation
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a spool file could not be made, written, read or removed: the system call, the path
/// and errno, copied at once.
///
///     catch .spoolFailed(let url, let failure) { print(failure) }
///     // "write /srv/out/.spool/body-…: No space left on device (errno 28)"
public struct SpoolFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call by its family: `open`, `write`, `pread`, `mmap`, `unlink`.
    public var call: String
    /// The file (or the spool folder) the call was about.
    public var path: String
    /// The `errno` the call set (28, `ENOSPC`, for a full disk).
    public var errno: Int32

    /// "call path: strerror (errno N)".
    public var description: String {
        "\(call) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

extension SpoolFailure {
    /// The spool's calls go through SystemSupport's `SystemCall`; this turns its error into the
    /// spool's. Only `.system` comes out of those calls; a name refused for a NUL byte (which no
    /// spool name holds) reads as `EINVAL`; any other names `path` with `EIO`.
    init(_ error: ContainerError, path: String) {
        switch error {
        case .system(let call, let path, let code): self.init(call: call, path: path, errno: code)
        case .refusedPath(let call, let path, _): self.init(call: call, path: path, errno: EINVAL)
        default: self.init(call: "spool", path: path, errno: EIO)
        }
    }

    /// Runs one of `SystemCall`'s calls on the file at `path`, its error as a `SpoolFailure`.
    static func calling<T>(_ path: String, _ body: () throws(ContainerError) -> T) throws(SpoolFailure) -> T {
        do { return try body() } catch { throw SpoolFailure(error, path: path) }
    }
}
