import Foundation

/// Writes a file so that it is either absent or complete under its final name, never partial.
///
///     try AtomicWriter.write(jpegData, to: container.url.appending(path: "Images/X-cat.jpg"))
///
/// The bytes go to `.<name>.tmp-<random>` in the same folder (O_CREAT|O_EXCL, mode 0666 narrowed
/// by the umask, like any file a tool writes), are fsynced, renamed over the final name, and
/// then the folder is fsynced so the rename survives a crash. On any failure before the rename
/// the temporary file is removed. Left-over temporaries from a crashed run are removed by
/// `Container.open` (`removeStaleTemporaries`).
///
/// Every step is relative to the folder's descriptor (`openat`, `renameat`, `unlinkat`): a link
/// at the final name is replaced, never written through.
package enum AtomicWriter {
    /// The marker inside every temporary name; `isTemporaryName` recognises it.
    package static let temporaryMarker = ".tmp-"

    package static func write(_ data: Data, to finalURL: URL) throws(ContainerError) {
        let file = try AtomicFile(finalURL)
        try file.append(data)
        try file.commit()
    }

    /// Writes `data` as `name` in the open `folder`; errors name `folder.path(of: name)`.
    package static func write(_ data: Data, in folder: DirectoryHandle, name: String) throws(ContainerError) {
        let file = try AtomicFile(in: folder, name: name)
        try file.append(data)
        try file.commit()
    }

    /// NAME_MAX on Linux: the longest name of one entry, in bytes.
    package static let nameMax = 255

    /// `.<name>.tmp-<8 hex>`, with `<name>` cut so the whole stays within NAME_MAX bytes.
    package static func temporaryName(for finalName: String) -> String {
        let suffix =
            temporaryMarker
            + String(UInt32.random(in: .min ... .max), radix: 16)
            .leftPadded(to: 8)
        let budget = nameMax - 1 - suffix.utf8.count
        return "." + finalName.prefix(utf8Bytes: budget) + suffix
    }

    /// True for names `temporaryName(for:)` makes.
    package static func isTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix("."), let range = name.range(of: temporaryMarker, options: .backwards) else {
            return false
        }
        let tail = name[range.upperBound...]
        return tail.count == 8 && tail.allSatisfy(\.isHexDigit)
    }
}

/// A file written in pieces that appears under its final name only when `commit()` succeeds;
/// dropped (its temporary removed) otherwise. `AtomicWriter.write` in several calls, for output
/// too large to hold whole (the final manifest of a long run).
///
///     let file = try AtomicFile(dir.appendingPathComponent("manifest.json"))
///     for chunk in chunks { try file.append(chunk) }
///     try file.commit()
///
/// Errors name the final path: the temporary is an implementation detail, gone by the time the
/// error is read.
package final class AtomicFile {
    package let finalPath: String
    private let folder: DirectoryHandle
    private let finalName: String
    private let tempName: String
    private var fd: Int32
    /// True once the temporary is renamed into place or removed.
    private var finished = false

    /// Opens the folder of `finalURL` by its path (following links: the caller's choice).
    package convenience init(_ finalURL: URL) throws(ContainerError) {
        let finalPath = finalURL.path
        let folder: DirectoryHandle
        do { folder = try DirectoryHandle(opening: finalURL.deletingLastPathComponent().path) } catch {
            // Name the file asked for, as every other error here does.
            guard case let .system(call, _, code) = error else { throw error }
            throw .system(call: call, path: finalPath, errno: code)
        }
        try self.init(in: folder, name: finalURL.lastPathComponent, finalPath: finalPath)
    }

    /// The file `name` in `folder`; `finalPath` names it in errors. A `readable` file is opened
    /// for reading too, for `commitKeepingDescriptor()`.
    package init(in folder: DirectoryHandle, name: String, finalPath: String? = nil, readable: Bool = false)
        throws(ContainerError)
    {
        self.finalPath = finalPath ?? folder.path(of: name)
        self.folder = folder
        finalName = name
        tempName = AtomicWriter.temporaryName(for: name)
        fd = try folder.openFile(
            tempName, readable ? .readWrite : .writeOnly, [.create, .exclusive], permissions: 0o666,
            reportingPath: self.finalPath)
    }

    deinit { discard() }

    package func append(_ data: Data) throws(ContainerError) {
        guard fd >= 0 else { throw .system(call: "write", path: finalPath, errno: EBADF) }
        let fd = fd
        let path = finalPath
        let failure: ContainerError? = data.withUnsafeBytes { raw in
            guard raw.count > 0 else { return nil }
            do throws(ContainerError) { try SystemCall.writeAll(fd, raw, path: path) } catch { return error }
            return nil
        }
        if let failure {
            discard()
            throw failure
        }
    }

    /// Appends `count` bytes of the file `source` (named `sourcePath` in errors) from `offset`,
    /// copied by the kernel (`SystemCall.copy`). False, with nothing appended, when the kernel
    /// cannot copy between the two files: the caller appends the bytes another way.
    package func append(copying source: Int32, sourcePath: String, at offset: Int, count: Int) throws(ContainerError)
        -> Bool
    {
        guard fd >= 0 else { throw .system(call: "write", path: finalPath, errno: EBADF) }
        do throws(ContainerError) {
            return try SystemCall.copy(
                from: source, sourcePath: sourcePath, at: offset, count: count, to: fd, path: finalPath)
        } catch {
            discard()
            throw error
        }
    }

    /// fsync, close, rename over the final name, fsync the folder.
    package func commit() throws(ContainerError) {
        guard fd >= 0 else { throw .system(call: "rename", path: finalPath, errno: EBADF) }
        let fd = fd
        do throws(ContainerError) {
            try SystemCall.sync(fd, path: finalPath)
            self.fd = -1
            try SystemCall.close(fd, path: finalPath)
            try folder.rename(tempName, to: finalName, reportingPath: finalPath)
            finished = true
        } catch {
            discard()
            throw error
        }
        try folder.sync()
    }

    /// fsync, rename over the final name, fsync the folder, and hand over the descriptor (the
    /// caller closes it): the file just written, read from even if another process removes or
    /// replaces the name at once, with no open by name after the rename. Opened `readable`, it
    /// reads from the start.
    package func commitKeepingDescriptor() throws(ContainerError) -> Int32 {
        guard fd >= 0 else { throw .system(call: "rename", path: finalPath, errno: EBADF) }
        let fd = fd
        do throws(ContainerError) {
            try SystemCall.sync(fd, path: finalPath)
            try folder.rename(tempName, to: finalName, reportingPath: finalPath)
            self.fd = -1
            finished = true
        } catch {
            discard()
            throw error
        }
        do { try folder.sync() } catch {
            try? SystemCall.close(fd, path: finalPath)
            throw error
        }
        return fd
    }

    /// Closes and removes the temporary, unless committed. Safe to call more than once.
    private func discard() {
        if fd >= 0 {
            try? SystemCall.close(fd, path: finalPath)
            fd = -1
        }
        guard !finished else { return }
        finished = true
        try? folder.remove(tempName)
    }
}

extension String {
    package func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }

    /// The longest prefix whose UTF-8 form fits `bytes`, cut on a Character boundary.
    package func prefix(utf8Bytes bytes: Int) -> String {
        guard utf8.count > bytes else { return self }
        var used = 0
        var out = ""
        for character in self {
            let size = character.utf8.count
            if used + size > bytes { break }
            used += size
            out.append(character)
        }
        return out
    }
}
