import Foundation
import MediaTypes
import PushAttach
import SystemSupport

/// `DIR/manifest.jsonl`: one JSON line appended per finished item, as it finishes, so a crash
/// loses at most the line being written. Lines are in completion order, not input order (that
/// is `manifest.json`'s: sort by `index` to get it from the journal), and a `--resume` that
/// redoes a rejected or failed item adds a line for it; the last line of an item wins.
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
/// - A link planted at `manifest.jsonl`, or a file sharing its data with another name (a hard
///   link), is refused with `ContainerError.unsafeEntry` instead of appended through: the file is
///   opened relative to the container's descriptor with `O_NOFOLLOW`, and so are the recreation's
///   temporary and rename.
package final class ManifestJournal: @unchecked Sendable {
    package static let fileName = "manifest.jsonl"

    package let path: String
    /// The file's name in the container: `manifest.jsonl`, or a shard's `manifest.K-of-N.jsonl`.
    package let name: String
    package let syncEvery: Int
    /// The container, open: the journal is reached relative to it.
    private let folder: DirectoryHandle
    private let mutex = NSLock()
    private var fd: Int32
    private var unsynced = 0
    private var recreatedCount = 0

    /// Opens (or creates) the journal in the folder at `directory` (following links to the folder
    /// itself: the caller's choice).
    /// `name` is the journal's file name: `manifest.jsonl`, or a shard's (`Shard.journalName`).
    package convenience init(directory: URL, name: String = fileName, syncEvery: Int = 16) throws(ContainerError) {
        try self.init(in: DirectoryHandle(opening: directory.path), name: name, syncEvery: syncEvery)
    }

    /// Opens (or creates) the journal `name` in the open `folder`.
    init(in folder: DirectoryHandle, name: String = fileName, syncEvery: Int = 16) throws(ContainerError) {
        let path = folder.path(of: name)
        self.path = path
        self.name = name
        self.folder = folder
        self.syncEvery = max(1, syncEvery)
        let fd = try folder.openFile(name, .readWrite, [.append, .create], permissions: 0o644)
        self.fd = fd
        do throws(ContainerError) {
            if try Self.endsWithoutNewline(fd, path: path) {
                try SystemCall.writeAll(fd, [0x0A], path: path)
            }
        } catch {
            self.fd = -1
            try? SystemCall.close(fd, path: path)
            throw error
        }
    }

    deinit { try? close() }

    /// How many times the file was found deleted and put back.
    package var recreations: Int { mutex.withLock { recreatedCount } }

    /// Where an appended line is, and whether the file had to be recreated first.
    package struct Appended: Sendable, Hashable {
        /// The line's byte offset and length (without its newline), for `read(_:)`.
        package var offset: Int
        package var length: Int
        /// True when the file had been deleted and was recreated first (from the open
        /// descriptor, nothing lost).
        package var recreated: Bool
    }

    /// Appends `entry` as one line; fsyncs every `syncEvery` lines.
    @discardableResult
    package func append(_ entry: ManifestEntry) throws(ContainerError) -> Appended {
        // Keys in the fixed order; U+2028/U+2029 escaped too: a JSON line must stay one line for
        // every reader.
        var line = entry.jsonLine()
        line.append(0x0A)
        mutex.lock()
        defer { mutex.unlock() }
        guard fd >= 0 else { throw .system(call: "write", path: path, errno: EBADF) }
        let recreated = try recreateIfUnlinkedLocked()
        let fd = fd
        let path = path
        let sizeBefore = try SystemCall.seekToEnd(fd, path: path)
        let failure: ContainerError? = line.withUnsafeBytes { raw in
            do throws(ContainerError) { try SystemCall.writeAll(fd, raw, path: path) } catch { return error }
            return nil
        }
        if let failure {
            // Cut off whatever part of the line made it, so no half line is left behind.
            try? SystemCall.truncate(fd, to: sizeBefore, path: path)
            throw failure
        }
        unsynced += 1
        if unsynced >= syncEvery { try syncLocked() }
        return Appended(offset: Int(sizeBefore), length: line.count - 1, recreated: recreated)
    }

    /// The entry appended at `line` (what `append` returned), read back from the file: the
    /// dedupe table keeps this 16-byte span per URL instead of the entry. A line that now names
    /// a path `ContainerPath` refuses (the file was edited under the run) is an `.encoding` error.
    package func read(_ line: Appended) throws(ContainerError) -> ManifestEntry {
        mutex.lock()
        defer { mutex.unlock() }
        guard fd >= 0 else { throw .system(call: "pread", path: path, errno: EBADF) }
        let fd = fd
        var bytes = [UInt8](repeating: 0, count: line.length)
        let count = try SystemCall.read(fd, into: &bytes, at: line.offset, path: path)
        guard count == line.length else { throw .system(call: "pread", path: path, errno: EIO) }
        let entry: ManifestEntry
        do { entry = try JSONDecoder().decode(ManifestEntry.self, from: Data(bytes)) } catch {
            throw .encoding(path: path, reason: "line at byte \(line.offset) is not a manifest entry: \(error)")
        }
        // The run wrote the line, but the file is the container's: check it as any journal line.
        if let (file, problem) = entry.untrustedPath {
            throw .encoding(
                path: path,
                reason:
                    "line at byte \(line.offset) names file path \(DisplayText.escaped(file)), which is not trusted "
                    + "(\(problem))")
        }
        return entry
    }

    /// Puts the file back at `path` when it was deleted or replaced under the run. Returns true
    /// when it did.
    package func recreateIfUnlinked() throws(ContainerError) -> Bool {
        mutex.lock()
        defer { mutex.unlock() }
        guard fd >= 0 else { return false }
        return try recreateIfUnlinkedLocked()
    }

    private func recreateIfUnlinkedLocked() throws(ContainerError) -> Bool {
        guard try SystemCall.status(fd, path: path).links == 0 else { return false }
        // Copy the unlinked file, through its open descriptor, to a temporary beside the path,
        // then rename it into place and continue appending there.
        let tempName = AtomicWriter.temporaryName(for: name)
        let tempPath = folder.path(of: tempName)
        let copy = try folder.openFile(tempName, .readWrite, [.append, .create, .exclusive], permissions: 0o644)
        var renamed = false
        defer {
            if !renamed {
                try? folder.remove(tempName)
                try? SystemCall.close(copy, path: tempPath)
            }
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset = 0
        while true {
            let count = try SystemCall.read(fd, into: &buffer, at: offset, path: path)
            if count == 0 { break }
            try SystemCall.writeAll(copy, buffer[0..<count], path: tempPath)
            offset += count
        }
        try SystemCall.sync(copy, path: tempPath)
        try folder.rename(tempName, to: name, reportingPath: path)
        renamed = true
        try? folder.sync()
        try? SystemCall.close(fd, path: path)
        fd = copy
        unsynced = 0
        recreatedCount += 1
        return true
    }

    /// Forces written lines to disk now.
    package func sync() throws(ContainerError) {
        mutex.lock()
        defer { mutex.unlock() }
        try syncLocked()
    }

    /// Syncs and closes. Safe to call more than once.
    package func close() throws(ContainerError) {
        mutex.lock()
        defer { mutex.unlock() }
        guard fd >= 0 else { return }
        _ = try? recreateIfUnlinkedLocked()
        defer { fd = -1 }
        let syncResult = Result { () throws(ContainerError) in try syncLocked() }
        try SystemCall.close(fd, path: path)
        try syncResult.get()
    }

    private func syncLocked() throws(ContainerError) {
        guard fd >= 0, unsynced > 0 else { return }
        try SystemCall.sync(fd, path: path)
        unsynced = 0
    }

    /// True when the file is non-empty and its last byte is not `\n` (a crash mid-line).
    private static func endsWithoutNewline(_ fd: Int32, path: String) throws(ContainerError) -> Bool {
        let size = try SystemCall.seekToEnd(fd, path: path)
        guard size > 0 else { return false }
        var last: [UInt8] = [0]
        let count = try SystemCall.read(fd, into: &last, at: size - 1, path: path)
        return count == 1 && last[0] != 0x0A
    }
}
