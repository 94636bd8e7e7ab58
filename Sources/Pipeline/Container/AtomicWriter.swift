import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a file so that it is either absent or complete under its final name, never partial.
///
///     try AtomicWriter.write(jpegData, to: container.url.appending(path: "Images/X-cat.jpg"))
///
/// The bytes go to `.<name>.tmp-<random>` in the same folder (O_CREAT|O_EXCL, mode 0644), are
/// fsynced, renamed over the final name, and then the folder is fsynced so the rename survives a
/// crash. On any failure before the rename the temporary file is removed. Left-over temporaries
/// from a crashed run are removed by `Container.open` (`removeStaleTemporaries`).
public enum AtomicWriter {
    /// The marker inside every temporary name; `isTemporaryName` recognises it.
    static let temporaryMarker = ".tmp-"

    public static func write(_ data: Data, to finalURL: URL) throws(ContainerError) {
        let file = try AtomicFile(finalURL)
        try file.append(data)
        try file.commit()
    }

    /// `.<name>.tmp-<8 hex>`, with `<name>` cut so the whole stays within NAME_MAX bytes.
    static func temporaryName(for finalName: String) -> String {
        let suffix =
            temporaryMarker
            + String(UInt32.random(in: .min ... .max), radix: 16)
            .leftPadded(to: 8)
        let budget = AttachmentName.nameMax - 1 - suffix.utf8.count
        return "." + finalName.prefix(utf8Bytes: budget) + suffix
    }

    /// True for names `temporaryName(for:)` makes.
    static func isTemporaryName(_ name: String) -> Bool {
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
public final class AtomicFile {
    public let finalPath: String
    private let folder: String
    private let tempPath: String
    private var fd: Int32

    public init(_ finalURL: URL) throws(ContainerError) {
        finalPath = finalURL.path
        folder = finalURL.deletingLastPathComponent().path
        let tempPath = folder + "/" + AtomicWriter.temporaryName(for: finalURL.lastPathComponent)
        self.tempPath = tempPath
        fd = try SystemCall.run("open", path: finalPath) {
            open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        do throws(ContainerError) {
            // The umask may have narrowed the mode; attachments are meant to be readable.
            let fd = fd
            try SystemCall.run("fchmod", path: finalPath) { fchmod(fd, 0o644) }
        } catch {
            discard()
            throw error
        }
    }

    deinit { discard() }

    public func append(_ data: Data) throws(ContainerError) {
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

    /// fsync, close, rename over the final name, fsync the folder.
    public func commit() throws(ContainerError) {
        guard fd >= 0 else { throw .system(call: "rename", path: finalPath, errno: EBADF) }
        let fd = fd
        do throws(ContainerError) {
            try SystemCall.run("fsync", path: finalPath) { fsync(fd) }
            self.fd = -1
            try SystemCall.closeDescriptor(fd, path: finalPath)
            let (tempPath, finalPath) = (tempPath, finalPath)
            try SystemCall.run("rename", path: finalPath) { rename(tempPath, finalPath) }
        } catch {
            discard()
            throw error
        }
        try SystemCall.syncDirectory(folder)
    }

    /// Closes and removes the temporary, unless committed. Safe to call more than once.
    private func discard() {
        if fd >= 0 {
            _ = try? SystemCall.closeDescriptor(fd, path: finalPath)
            fd = -1
            unlink(tempPath)
        } else if FileManager.default.fileExists(atPath: tempPath) {
            unlink(tempPath)
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }

    /// The longest prefix whose UTF-8 form fits `bytes`, cut on a Character boundary.
    func prefix(utf8Bytes bytes: Int) -> String {
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
