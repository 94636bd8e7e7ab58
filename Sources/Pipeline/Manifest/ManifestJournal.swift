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
///
/// Faults:
/// - A write that fails part-way (disk full) is cut back off the file, so the journal never
///   keeps half a line from a live run.
/// - The file deleted (or replaced) while the run goes on: before each append the journal
///   checks its descriptor's link count; at 0 it copies the still-open, unlinked file back to
///   its path (through a temporary and a rename) and carries on there. Nothing is held in
///   memory for this: the lost inode itself is the copy. `recreations` counts these.
public final class ManifestJournal: @unchecked Sendable {
    public static let fileName = "manifest.jsonl"

    public let path: String
    public let syncEvery: Int
    private let mutex = NSLock()
    private var fd: Int32
    private var unsynced = 0
    private var recreatedCount = 0
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    public init(directory: URL, syncEvery: Int = 16) throws(ContainerError) {
        let path = directory.appendingPathComponent(Self.fileName).path
        self.path = path
        self.syncEvery = max(1, syncEvery)
        fd = try SystemCall.run("open", path: path) { open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644) }
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

    /// How many times the file was found deleted and put back.
    public var recreations: Int { mutex.withLock { recreatedCount } }

    /// Where an appended line is, and whether the file had to be recreated first.
    public struct Appended: Sendable, Hashable {
        /// The line's byte offset and length (without its newline), for `read(_:)`.
        public var offset: Int
        public var length: Int
        /// True when the file had been deleted and was recreated first (from the open
        /// descriptor, nothing lost).
        public var recreated: Bool
    }

    /// Appends `entry` as one line; fsyncs every `syncEvery` lines.
    @discardableResult
    public func append(_ entry: ManifestEntry) throws(ContainerError) -> Appended {
        var line: Data
        do { line = try encoder.encode(entry) } catch {
            throw .encoding(path: path, reason: "\(error)")
        }
        line.append(0x0A)
        mutex.lock()
        defer { mutex.unlock() }
        guard fd >= 0 else { throw .system(call: "write", path: path, errno: EBADF) }
        let recreated = try recreateIfUnlinkedLocked()
        let fd = fd
        let path = path
        let sizeBefore = try SystemCall.run("lseek", path: path) { lseek(fd, 0, SEEK_END) }
        let failure: ContainerError? = line.withUnsafeBytes { raw in
            do throws(ContainerError) { try SystemCall.writeAll(fd, raw, path: path) } catch { return error }
            return nil
        }
        if let failure {
            // Cut off whatever part of the line made it, so no half line is left behind.
            _ = ftruncate(fd, sizeBefore)
            throw failure
        }
        unsynced += 1
        if unsynced >= syncEvery { try syncLocked() }
        return Appended(offset: Int(sizeBefore), length: line.count - 1, recreated: recreated)
    }

    /// The entry appended at `line` (what `append` returned), read back from the file: the
    /// dedupe table keeps this 16-byte span per URL instead of the entry.
    public func read(_ line: Appended) throws(ContainerError) -> ManifestEntry {
        mutex.lock()
        defer { mutex.unlock() }
        guard fd >= 0 else { throw .system(call: "pread", path: path, errno: EBADF) }
        let fd = fd
        var data = Data(count: line.length)
        let count = try SystemCall.run("pread", path: path) {
            data.withUnsafeMutableBytes { pread(fd, $0.baseAddress, line.length, off_t(line.offset)) }
        }
        guard count == line.length else { throw .system(call: "pread", path: path, errno: EIO) }
        do { return try JSONDecoder().decode(ManifestEntry.self, from: data) } catch {
            throw .encoding(path: path, reason: "line at byte \(line.offset) is not a manifest entry: \(error)")
        }
    }

    /// Puts the file back at `path` when it was deleted or replaced under the run. Returns true
    /// when it did.
    public func recreateIfUnlinked() throws(ContainerError) -> Bool {
        mutex.lock()
        defer { mutex.unlock() }
        guard fd >= 0 else { return false }
        return try recreateIfUnlinkedLocked()
    }

    private func recreateIfUnlinkedLocked() throws(ContainerError) -> Bool {
        var info = stat()
        try SystemCall.run("fstat", path: path) { fstat(fd, &info) }
        guard info.st_nlink == 0 else { return false }
        // Copy the unlinked file, through its open descriptor, to a temporary beside the path,
        // then rename it into place and continue appending there.
        let folder = (path as NSString).deletingLastPathComponent
        let tempPath = folder + "/" + AtomicWriter.temporaryName(for: Self.fileName)
        let copy = try SystemCall.run("open", path: tempPath) {
            open(tempPath, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        var renamed = false
        defer {
            if !renamed {
                unlink(tempPath)
                _ = try? SystemCall.closeDescriptor(copy, path: tempPath)
            }
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let source = fd
            let count = try SystemCall.run("pread", path: path) {
                buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress, $0.count, offset) }
            }
            if count == 0 { break }
            let failure: ContainerError? = buffer.withUnsafeBytes { raw in
                do throws(ContainerError) {
                    try SystemCall.writeAll(copy, UnsafeRawBufferPointer(rebasing: raw[0..<count]), path: tempPath)
                } catch { return error }
                return nil
            }
            if let failure { throw failure }
            offset += off_t(count)
        }
        try SystemCall.run("fsync", path: tempPath) { fsync(copy) }
        try SystemCall.run("rename", path: path) { rename(tempPath, path) }
        renamed = true
        try? SystemCall.syncDirectory(folder)
        _ = try? SystemCall.closeDescriptor(fd, path: path)
        fd = copy
        unsynced = 0
        recreatedCount += 1
        return true
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
        _ = try? recreateIfUnlinkedLocked()
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
