#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one wrapper every system call in the container goes through: retries EINTR and turns
/// `-1` + errno into a `ContainerError` naming the call and the path (after swift-nio's
/// `System.swift`).
///
///     let fd = try SystemCall.run("open", path: path) { open(path, O_RDONLY) }
enum SystemCall {
    @discardableResult
    static func run<T: FixedWidthInteger & SignedInteger>(
        _ call: String, path: String, _ body: () -> T
    ) throws(ContainerError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw .system(call: call, path: path, errno: code)
        }
    }

    /// Writes all of `bytes`, looping over partial writes.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(ContainerError) {
        var offset = 0
        while offset < bytes.count {
            let chunk = min(bytes.count - offset, 1 << 30)
            let base = bytes.baseAddress! + offset
            let written = try run("write", path: path) { write(fd, base, chunk) }
            if written == 0 { throw .system(call: "write", path: path, errno: EIO) }
            offset += written
        }
    }

    /// Closes `fd`. EINTR is not retried: on Linux the descriptor is already released.
    static func closeDescriptor(_ fd: Int32, path: String) throws(ContainerError) {
        let result = close(fd)
        if result == -1, errno != EINTR { throw .system(call: "close", path: path, errno: errno) }
    }

    /// Opens the folder and fsyncs it, so a rename or create inside it is durable.
    static func syncDirectory(_ path: String) throws(ContainerError) {
        let fd = try run("open", path: path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { _ = try? closeDescriptor(fd, path: path) }
        try run("fsync", path: path) { fsync(fd) }
    }
}
