import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits for a condition on a folder's entries, woken by the kernel (inotify) each time an entry
/// of the folder is created, written, renamed or removed: no timer, no polling.
///
///     let spool = container.appendingPathComponent(".spool")
///     let streaming = await FolderEvents.wait(in: spool) { !FolderEvents.names(in: spool).isEmpty }
public enum FolderEvents {
    /// The names in `folder` (none when it cannot be read).
    public static func names(in folder: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    }

    /// Blocks the calling thread until `condition` holds (checked first, then after each event in
    /// `folder`): true then, false when `timeout` passed first or `folder` cannot be watched.
    /// The timeout only bounds a broken test.
    public static func waitBlocking(
        in folder: URL, timeout: Duration = HangGuard.wait, until condition: () -> Bool
    ) -> Bool {
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let mask = UInt32(IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)
        guard inotify_add_watch(fd, folder.path, mask) >= 0 else { return false }
        let end = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !condition() {
            let left = end - ContinuousClock.now
            guard left > .zero else { return false }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.components.seconds * 1000 + 1, Int64(Int32.max)))
            guard poll(&poller, 1, milliseconds) >= 0 || errno == EINTR else { return false }
            if poller.revents & Int16(POLLIN) != 0 { _ = read(fd, &buffer, buffer.count) }
        }
        return true
    }

    /// `waitBlocking` on a thread of its own, so a suspended test does not tie up a thread of the
    /// cooperative pool.
    public static func wait(
        in folder: URL, timeout: Duration = HangGuard.wait, until condition: @escaping @Sendable () -> Bool
    ) async -> Bool {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: waitBlocking(in: folder, timeout: timeout, until: condition)) }
            thread.name = "FolderEvents.wait"
            thread.start()
        }
    }
}
