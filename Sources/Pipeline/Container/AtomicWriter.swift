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
        let finalPath = finalURL.path
        let folder = finalURL.deletingLastPathComponent().path
        let tempPath = folder + "/" + temporaryName(for: finalURL.lastPathComponent)
        // Errors name the final path: the temporary is an implementation detail, and it is gone
        // by the time the error is read.

        let fd = try SystemCall.run("open", path: finalPath) {
            open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        var renamed = false
        defer { if !renamed { unlink(tempPath) } }
        do throws(ContainerError) {
            // The umask may have narrowed the mode; attachments are meant to be readable.
            try SystemCall.run("fchmod", path: finalPath) { fchmod(fd, 0o644) }
            let failure: ContainerError? = data.withUnsafeBytes { raw in
                guard raw.count > 0 else { return nil }
                do throws(ContainerError) { try SystemCall.writeAll(fd, raw, path: finalPath) } catch { return error }
                return nil
            }
            if let failure { throw failure }
            try SystemCall.run("fsync", path: finalPath) { fsync(fd) }
        } catch {
            _ = try? SystemCall.closeDescriptor(fd, path: finalPath)
            throw error
        }
        try SystemCall.closeDescriptor(fd, path: finalPath)
        try SystemCall.run("rename", path: finalPath) { rename(tempPath, finalPath) }
        renamed = true
        try SystemCall.syncDirectory(folder)
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
