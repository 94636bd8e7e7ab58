import Foundation

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

/// The system calls of the spool, the only ones in the Fetch module: each retries EINTR and
/// turns `-1` + errno into a `SpoolFailure` naming the call and the path (the shape of
/// SystemSupport's `SystemCall`).
enum SpoolCall {
    @discardableResult
    static func run<T: FixedWidthInteger & SignedInteger>(_ call: String, path: String, _ body: () -> T)
        throws(SpoolFailure) -> T
    {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw SpoolFailure(call: call, path: path, errno: code)
        }
    }

    /// The folder at `path`, opened as a directory (following links: the caller's path).
    static func openDirectory(_ path: String) throws(SpoolFailure) -> Int32 {
        try run("open", path: path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    }

    static func duplicate(_ fd: Int32, path: String) throws(SpoolFailure) -> Int32 {
        try run("dup", path: path) { fcntl(fd, F_DUPFD_CLOEXEC, 0) }
    }

    /// A new file `name` in `directory`, read-write, never an existing name or a link.
    static func create(in directory: Int32, _ name: String, path: String) throws(SpoolFailure) -> Int32 {
        try run("open", path: path) {
            openat(directory, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(0o666))
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(SpoolFailure) {
        var done = 0
        while done < bytes.count {
            let written = try run("write", path: path) { write(fd, bytes.baseAddress! + done, bytes.count - done) }
            if written == 0 { throw SpoolFailure(call: "write", path: path, errno: EIO) }
            done += written
        }
    }

    /// `pread(2)` until `buffer` is full or the file ends; the bytes read.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int, path: String)
        throws(SpoolFailure) -> Int
    {
        var done = 0
        while done < buffer.count {
            let got = try run("pread", path: path) {
                pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            }
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// The first `count` bytes of the file (`size` long) mapped read-only and private, as `Data`
    /// that unmaps itself when the last copy goes. The mapping stays valid after the file is
    /// renamed or unlinked.
    static func map(_ fd: Int32, size: Int, path: String) throws(SpoolFailure) -> Data {
        guard size > 0 else { return Data() }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw SpoolFailure(call: "mmap", path: path, errno: errno)
        }
        return Data(
            bytesNoCopy: base, count: size, deallocator: .custom { pointer, count in _ = munmap(pointer, count) })
    }

    static func unlink(in directory: Int32, _ name: String, path: String) throws(SpoolFailure) {
        try run("unlink", path: path) { unlinkat(directory, name, 0) }
    }

    /// Closes `fd`; EINTR is not retried (on Linux the descriptor is released already).
    static func close(_ fd: Int32) { _ = cClose(fd) }

    static var processID: Int32 { getpid() }
}

// `close` by another name, reached from inside `SpoolCall` (whose own `close` hides it).
private func cClose(_ fd: Int32) -> Int32 { close(fd) }
