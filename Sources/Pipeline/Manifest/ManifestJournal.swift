import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `DIR/manifest.jsonl`: one JSON line appended per finished item, as it finishes, so a crash
/// loses at most the line being written.
///
///     let journal = try ManifestJournal(directory: container.url)
///     try journal.append(entry)      // from any task or thread
///     try journal.close()
///
/// Each line goes out in one `write(2)` loop on an `O_APPEND` descriptor, under a lock, so lines
/// from concurrent callers never interleave. Durability policy: `fsync` after every
/// `syncEvery` lines (default 16) and at `close()`; a crash can lose at most the last
/// `syncEvery` lines, which `--resume` then redoes. A crash mid-line leaves a truncated last
/// line, which `Manifest.load` skips; on reopening, the journal first ends that line so the
/// next entry starts on its own line.
public final class ManifestJournal: @unchecked Sendable {
    public static let fileName = "manifest.jsonl"

    public let path: String
    public let syncEvery: Int
    private let mutex = NSLock()
    private var fd: Int32
    private var unsynced = 0
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    public init(directory: URL, syncEvery: Int = 16) throws(ContainerError) {
        let path = directory.appendingPathComponent(Self.fileName).path
        self.path = path
        self.syncEvery = max(1, syncEvery)
        fd = try SystemCall.run("open", path: path) { open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644) }
        do throws(ContainerError) {
            if try Self.endsWithoutNewline(path) {
                let fd = fd
                var newline: UInt8 = 0x0A
                try SystemCall.run("write", path: path) { write(fd, &newline, 1) }
            }
        } catch {
            _ = try? SystemCall.closeDescriptor(fd, path: path)
            throw error
        }
    }

    deinit { try? close() }

    /// Appends `entry` as one line; fsyncs every `syncEvery` lines.
    public func append(_ entry: ManifestEntry) throws(ContainerError) {
        var line: Data
        do { line = try encoder.encode(entry) } catch {
            throw .encoding(path: path, reason: "\(error)")
        }
        line.append(0x0A)
        mutex.lock()
        defer { mutex.unlock() }
        guard fd >= 0 else { throw .system(call: "write", path: path, errno: EBADF) }
        let fd = fd
        let path = path
        let failure: ContainerError? = line.withUnsafeBytes { raw in
            do throws(ContainerError) { try SystemCall.writeAll(fd, raw, path: path) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        unsynced += 1
        if unsynced >= syncEvery { try syncLocked() }
    }

    /// Forces written lines to disk now.
    public func sync() throws(ContainerError) {
        mutex.lock()
        defer { mutex.unlock() }
        try syncLocked()
    }

    /// Syncs and closes. Safe to call more than once.
    public func close() throws(ContainerError) {
        mutex.lock()
        defer { mutex.unlock() }
        guard fd >= 0 else { return }
        defer { fd = -1 }
        let syncResult = Result { () throws(ContainerError) in try syncLocked() }
        try SystemCall.closeDescriptor(fd, path: path)
        try syncResult.get()
    }

    private func syncLocked() throws(ContainerError) {
        guard fd >= 0, unsynced > 0 else { return }
        let fd = fd
        try SystemCall.run("fsync", path: path) { fsync(fd) }
        unsynced = 0
    }

    /// True when the file is non-empty and its last byte is not `\n` (a crash mid-line).
    private static func endsWithoutNewline(_ path: String) throws(ContainerError) -> Bool {
        let fd = try SystemCall.run("open", path: path) { open(path, O_RDONLY | O_CLOEXEC) }
        defer { _ = try? SystemCall.closeDescriptor(fd, path: path) }
        let size = try SystemCall.run("lseek", path: path) { lseek(fd, 0, SEEK_END) }
        guard size > 0 else { return false }
        var last: UInt8 = 0
        let count = try SystemCall.run("pread", path: path) { pread(fd, &last, 1, size - 1) }
        return count == 1 && last != 0x0A
    }
}
