import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one wrapper every file system call of the container goes through, and the only file of
/// the module that imports the C library (after swift-nio's `System.swift`): each function
/// retries EINTR and turns `-1` + errno into a `ContainerError` naming the call and the path.
///
///     let fd = try SystemCall.open(path, .readOnly)
///     defer { try? SystemCall.close(fd, path: path) }
///     let info = try SystemCall.status(fd, path: path)   // info.kind == .regular
///
/// `path` is only for the message: the file the caller means, which for the `…at` calls is the
/// folder's path plus the name. A name or path holding a NUL byte is refused before the call
/// (`ContainerError.refusedPath`): C would read it only up to the NUL. Errors name the call by its family (`open` for open/openat,
/// `rename` for renameat, …), as a reader of the message knows them.
///
/// Inside the container nothing is reached by path: `DirectoryHandle` opens the container once
/// and then goes through the `…at` calls here, relative to its descriptor, never following a
/// link.
package enum SystemCall {
    /// Runs `body` until it does not fail with EINTR; `-1` becomes `.system(call:path:errno:)`.
    @discardableResult
    package static func run<T: FixedWidthInteger & SignedInteger>(
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

    /// The C library's text for `code` ("No such file or directory").
    package static func message(for code: Int32) -> String { String(cString: strerror(code)) }

    package static var processID: Int32 { getpid() }

    /// Refuses a name holding a NUL byte before it reaches a C call, which would read only the
    /// part before the NUL and act on another file than the one named (`"..\u{0}/x.jpg"` would
    /// be `".."`, the folder above). A path read from outside (a journal line) may hold one; no
    /// name PushAttach makes does.
    package static func refuseNUL(_ names: String..., call: String, path: String) throws(ContainerError) {
        for name in names where name.utf8.contains(0) {
            throw .refusedPath(call: call, path: path, reason: "it holds a NUL byte")
        }
    }

    // MARK: - Opening and closing

    package enum Access: Sendable {
        case readOnly, writeOnly, readWrite

        package var flags: Int32 {
            switch self {
            case .readOnly: O_RDONLY
            case .writeOnly: O_WRONLY
            case .readWrite: O_RDWR
            }
        }
    }

    /// `open(2)` flags besides the access mode. `O_CLOEXEC` is always added.
    package struct OpenOptions: OptionSet, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }
        package static let create = OpenOptions(rawValue: O_CREAT)
        package static let exclusive = OpenOptions(rawValue: O_EXCL)
        package static let append = OpenOptions(rawValue: O_APPEND)
        package static let directory = OpenOptions(rawValue: O_DIRECTORY)
        /// Fails (ELOOP; ENOTDIR with `.directory`) when the last component is a symbolic link.
        package static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        /// So a FIFO planted where a file is expected cannot block the open.
        package static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
    }

    /// `open(2)` by path, following links on the way: for paths the user gave.
    package static func open(_ path: String, _ access: Access, _ options: OpenOptions = []) throws(ContainerError) -> Int32 {
        try refuseNUL(path, call: "open", path: path)
        let flags = access.flags | options.rawValue | O_CLOEXEC
        return try run("open", path: path) { cOpen(path, flags) }
    }

    /// `openat(2)`: `name` inside the folder open as `directory`. `permissions` is narrowed by
    /// the umask, as for any new file.
    package static func open(
        in directory: Int32, _ name: String, _ access: Access, _ options: OpenOptions = [], permissions: Int = 0,
        path: String
    ) throws(ContainerError) -> Int32 {
        try refuseNUL(name, call: "open", path: path)
        let flags = access.flags | options.rawValue | O_CLOEXEC
        let mode = mode_t(permissions)
        return try run("open", path: path) { openat(directory, name, flags, mode) }
    }

    /// Closes `fd`. EINTR is not retried: on Linux the descriptor is already released.
    package static func close(_ fd: Int32, path: String) throws(ContainerError) {
        let result = cClose(fd)
        if result == -1, errno != EINTR { throw .system(call: "close", path: path, errno: errno) }
    }

    // MARK: - Reading and writing

    /// One `read(2)` into `buffer`; 0 at the end.
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(ContainerError)
        -> Int
    {
        try run("read", path: path) { cRead(fd, buffer.baseAddress, buffer.count) }
    }

    /// One `pread(2)` into `buffer` from `offset`; 0 at the end.
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int, path: String)
        throws(ContainerError) -> Int
    {
        try run("pread", path: path) { pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// `pread(2)` from `offset` until `buffer` is full or the file ends; the bytes read.
    package static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int, path: String)
        throws(ContainerError) -> Int
    {
        var done = 0
        while done < buffer.count {
            let got = try read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + done, path: path)
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// The first `size` bytes of the file mapped read-only and private (`mmap(2)`), as `Data`
    /// that unmaps itself when its last copy goes. The mapping stays valid after the file is
    /// renamed or unlinked.
    package static func map(_ fd: Int32, size: Int, path: String) throws(ContainerError) -> Data {
        guard size > 0 else { return Data() }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw .system(call: "mmap", path: path, errno: errno)
        }
        return Data(
            bytesNoCopy: base, count: size, deallocator: .custom { pointer, count in _ = munmap(pointer, count) })
    }

    /// Writes all of `bytes`, looping over partial writes: at the file offset (or the end, for
    /// `O_APPEND`), or from `offset` with `pwrite(2)`.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int? = nil, path: String)
        throws(ContainerError)
    {
        var done = 0
        while done < bytes.count {
            let chunk = min(bytes.count - done, 1 << 30)
            let base = bytes.baseAddress! + done
            let written =
                if let offset {
                    try run("pwrite", path: path) { pwrite(fd, base, chunk, off_t(offset + done)) }
                } else {
                    try run("write", path: path) { write(fd, base, chunk) }
                }
            if written == 0 { throw .system(call: "write", path: path, errno: EIO) }
            done += written
        }
    }

    /// Copies `count` bytes of the file `source` (named `sourcePath`) from `offset` to
    /// `target`'s file offset with `sendfile(2)`, inside the kernel: no buffer of ours, no copy
    /// through user space. Loops over partial copies; fails with EIO naming `sourcePath` when the
    /// source ends first; other failures name `path`, the target.
    ///
    /// False, with nothing copied, when the kernel cannot copy between these two files (EINVAL,
    /// ENOSYS or ESPIPE on the first call): the caller reads and writes instead.
    package static func copy(
        from source: Int32, sourcePath: String, at offset: Int, count: Int, to target: Int32, path: String
    ) throws(ContainerError) -> Bool {
        var position = off_t(offset)
        var done = 0
        while done < count {
            let chunk = min(count - done, 1 << 30)
            let sent = sendfile(target, source, &position, chunk)
            if sent == -1 {
                let code = errno
                if code == EINTR { continue }
                if done == 0, code == EINVAL || code == ENOSYS || code == ESPIPE { return false }
                throw .system(call: "sendfile", path: path, errno: code)
            }
            if sent == 0 { throw .system(call: "sendfile", path: sourcePath, errno: EIO) }
            done += sent
        }
        return true
    }

    /// `read(_:into:path:)` (or, with `offset`, `pread`) into `buffer[range]` (default: all of
    /// it). The standard library's `withUnsafe…Bytes` rethrow `any Error`; these keep the type.
    package static func read(
        _ fd: Int32, into buffer: inout [UInt8], range: Range<Int>? = nil, at offset: Int? = nil, path: String
    ) throws(ContainerError) -> Int {
        let range = range ?? 0..<buffer.count
        let result: Result<Int, ContainerError> = buffer.withUnsafeMutableBytes { raw in
            let target = UnsafeMutableRawBufferPointer(rebasing: raw[range])
            return Result { () throws(ContainerError) in
                if let offset {
                    try read(fd, into: target, at: offset, path: path)
                } else {
                    try read(fd, into: target, path: path)
                }
            }
        }
        return try result.get()
    }

    /// `writeAll` of `bytes`.
    package static func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>, at offset: Int? = nil, path: String)
        throws(ContainerError)
    {
        let result: Result<Void, ContainerError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ContainerError) in try writeAll(fd, raw, at: offset, path: path) }
        }
        try result.get()
    }

    /// The file's size, leaving the offset at its end (`lseek(2)` to `SEEK_END`).
    package static func seekToEnd(_ fd: Int32, path: String) throws(ContainerError) -> Int {
        Int(try run("lseek", path: path) { lseek(fd, 0, SEEK_END) })
    }

    package static func truncate(_ fd: Int32, to size: Int, path: String) throws(ContainerError) {
        try run("ftruncate", path: path) { ftruncate(fd, off_t(size)) }
    }

    /// `fsync(2)`: of a file, or of a folder so a create, rename or unlink inside it is durable.
    package static func sync(_ fd: Int32, path: String) throws(ContainerError) {
        try run("fsync", path: path) { fsync(fd) }
    }

    /// A non-blocking exclusive `flock(2)`; fails with EWOULDBLOCK when another holds it.
    package static func lockExclusive(_ fd: Int32, path: String) throws(ContainerError) {
        try run("flock", path: path) { flock(fd, LOCK_EX | LOCK_NB) }
    }

    /// A blocking exclusive `flock(2)`: waits while another holds it (held by others for an
    /// instant only, where used: a private spool folder's owner file).
    package static func lockExclusiveWaiting(_ fd: Int32, path: String) throws(ContainerError) {
        try run("flock", path: path) { flock(fd, LOCK_EX) }
    }

    /// A non-blocking shared `flock(2)`: any number of holders, but none while another holds it
    /// exclusively (EWOULDBLOCK).
    package static func lockShared(_ fd: Int32, path: String) throws(ContainerError) {
        try run("flock", path: path) { flock(fd, LOCK_SH | LOCK_NB) }
    }

    /// `flock(2)` with `LOCK_UN`: lets go of a lock on the open file description at once, even
    /// while a child being spawned still shares the descriptor.
    package static func unlock(_ fd: Int32, path: String) throws(ContainerError) {
        try run("flock", path: path) { flock(fd, LOCK_UN) }
    }

    // MARK: - Status

    /// What `stat(2)` says, in the terms the callers need.
    package struct FileStatus: Sendable, Hashable {
        package enum Kind: Sendable, Hashable { case regular, directory, symbolicLink, other }
        package var kind: Kind
        package var size: Int
        package var links: Int
        /// The device and inode: equal for two names (or descriptors) of one file.
        package var identity: FileIdentity
        /// When the data was last changed (or the time set by `touch`), in seconds since 1970.
        package var modified: Double

        package init(_ info: stat) {
            kind =
                switch info.st_mode & S_IFMT {
                case S_IFREG: .regular
                case S_IFDIR: .directory
                case S_IFLNK: .symbolicLink
                default: .other
                }
            size = Int(info.st_size)
            links = Int(info.st_nlink)
            identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        }
    }

    /// Which file a status is of, whatever name or descriptor reached it.
    package struct FileIdentity: Sendable, Hashable {
        package var device: UInt64
        package var inode: UInt64
    }

    /// `fcntl(F_DUPFD_CLOEXEC)`: another descriptor of the same open file (its own to close).
    package static func duplicate(_ fd: Int32, path: String) throws(ContainerError) -> Int32 {
        try run("dup", path: path) { fcntl(fd, F_DUPFD_CLOEXEC, 0) }
    }

    /// `futimens(2)` with the current time: marks a file as used now (the cache's LRU order).
    package static func touch(_ fd: Int32, path: String) throws(ContainerError) {
        try run("futimens", path: path) { futimens(fd, nil) }
    }

    /// `utimensat(2)` of `name` in `directory` with the current time, never through a link: as
    /// `touch(_:path:)`, for a file known by name only.
    package static func touch(in directory: Int32, _ name: String, path: String) throws(ContainerError) {
        try refuseNUL(name, call: "utimensat", path: path)
        try run("utimensat", path: path) { utimensat(directory, name, nil, AT_SYMLINK_NOFOLLOW) }
    }

    /// `fstat(2)`.
    package static func status(_ fd: Int32, path: String) throws(ContainerError) -> FileStatus {
        var info = stat()
        try run("fstat", path: path) { fstat(fd, &info) }
        return FileStatus(info)
    }

    /// `stat(2)` by path, following links: for paths the user gave.
    package static func status(atPath path: String) throws(ContainerError) -> FileStatus {
        try refuseNUL(path, call: "stat", path: path)
        var info = stat()
        try run("stat", path: path) { stat(path, &info) }
        return FileStatus(info)
    }

    /// `fstatat(2)` with `AT_SYMLINK_NOFOLLOW`: a link is reported as one, never followed.
    package static func status(in directory: Int32, _ name: String, path: String) throws(ContainerError) -> FileStatus {
        try refuseNUL(name, call: "stat", path: path)
        var info = stat()
        try run("stat", path: path) { fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) }
        return FileStatus(info)
    }

    /// `faccessat(2)` of `name` in `directory` (`"."` for the folder itself): may this process
    /// create and remove names there?
    package static func checkWritable(in directory: Int32, _ name: String, path: String) throws(ContainerError) {
        try refuseNUL(name, call: "access", path: path)
        try run("access", path: path) { faccessat(directory, name, W_OK | X_OK, 0) }
    }

    // MARK: - Names

    /// `mkdir(2)` by path: for the container the user named.
    package static func makeDirectory(_ path: String, permissions: Int) throws(ContainerError) {
        try refuseNUL(path, call: "mkdir", path: path)
        try run("mkdir", path: path) { mkdir(path, mode_t(permissions)) }
    }

    /// `mkdirat(2)`.
    package static func makeDirectory(in directory: Int32, _ name: String, permissions: Int, path: String)
        throws(ContainerError)
    {
        try refuseNUL(name, call: "mkdir", path: path)
        try run("mkdir", path: path) { mkdirat(directory, name, mode_t(permissions)) }
    }

    /// `renameat(2)` within one folder: replaces `to` atomically; a link at `to` is replaced,
    /// not followed.
    package static func rename(in directory: Int32, _ from: String, to: String, path: String) throws(ContainerError) {
        try refuseNUL(from, to, call: "rename", path: path)
        try run("rename", path: path) { renameat(directory, from, directory, to) }
    }

    /// `renameat(2)` from one folder into another (same file system): replaces `to` atomically;
    /// a link at `to` is replaced, not followed.
    package static func rename(in directory: Int32, _ from: String, into target: Int32, _ to: String, path: String)
        throws(ContainerError)
    {
        try refuseNUL(from, to, call: "rename", path: path)
        try run("rename", path: path) { renameat(directory, from, target, to) }
    }

    /// `unlinkat(2)` with `AT_REMOVEDIR`: removes an empty folder itself.
    package static func removeDirectory(in directory: Int32, _ name: String, path: String) throws(ContainerError) {
        try refuseNUL(name, call: "rmdir", path: path)
        try run("rmdir", path: path) { unlinkat(directory, name, AT_REMOVEDIR) }
    }

    /// `unlinkat(2)` without `AT_REMOVEDIR`: removes a file or a link itself, never a folder
    /// (EISDIR) and never what a link points to.
    package static func unlink(in directory: Int32, _ name: String, path: String) throws(ContainerError) {
        try refuseNUL(name, call: "unlink", path: path)
        try run("unlink", path: path) { unlinkat(directory, name, 0) }
    }

    /// `realpath(3)`: the absolute path with every link and `.`/`..` resolved.
    package static func resolvedPath(_ path: String) throws(ContainerError) -> String {
        try refuseNUL(path, call: "realpath", path: path)
        guard let resolved = realpath(path, nil) else { throw .system(call: "realpath", path: path, errno: errno) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The names in the folder open as `directory`, without `.` and `..` (`fdopendir(3)` on a
    /// duplicate, so `directory` stays open and unmoved).
    package static func names(in directory: Int32, path: String) throws(ContainerError) -> [String] {
        var names: [String] = []
        try forEachName(in: directory, path: path) { names.append($0) }
        return names
    }

    /// Calls `body` with each name in the folder (not `.` or `..`), one at a time: a folder of a
    /// million files is never held as a list.
    package static func forEachName(in directory: Int32, path: String, _ body: (String) -> Void) throws(ContainerError) {
        let copy = try run("dup", path: path) { dup(directory) }
        guard let stream = fdopendir(copy) else {
            let code = errno
            _ = cClose(copy)
            throw .system(call: "opendir", path: path, errno: code)
        }
        defer { closedir(stream) }
        rewinddir(stream)
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw .system(call: "readdir", path: path, errno: errno) }
                return
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { body(name) }
        }
    }
}

// The C functions whose names the wrappers above reuse, reached from inside `SystemCall`.
private func cOpen(_ path: String, _ flags: Int32) -> Int32 { open(path, flags, 0) }
private func cClose(_ fd: Int32) -> Int32 { close(fd) }
private func cRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
