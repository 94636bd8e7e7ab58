import Foundation

/// Standard output or standard error, as every line the command prints reaches it: the one
/// place the command line writes to descriptors 1 and 2.
///
///     ConsoleStream.standardError.write(Data("3 items: 3 prepared\n".utf8))
///     ConsoleStream.standardOutput.isClosed   // true once `| head -3` has gone away
///
/// A closed reader is not a crash. When the other end of a pipe goes away (`prepare … --json |
/// head -3`: EPIPE) or the descriptor was never open (`2>&-`: EBADF), the stream stops printing,
/// silently, and the command goes on: a `prepare` run finishes its items, its journal, its
/// `manifest.json` and its lock as if the output were still read, and exits with its own status.
/// Any other write error (EIO, a full disk behind `> file`) stops the stream the same way: the
/// output is a view of the run, the manifest is its record. SIGPIPE is ignored for the process
/// (`ignoreBrokenPipes()`), so such a write fails with EPIPE instead of killing the process, and
/// a descriptor closed before the start is kept on `/dev/null` (`reserveStandardDescriptors()`)
/// so no file the run opens takes its number.
///
/// Each `write` goes out whole, retrying EINTR and short writes, and waiting (`poll`) on a
/// descriptor left non-blocking by whoever started us; writes from several threads do not
/// interleave.
final class ConsoleStream: @unchecked Sendable {
    static let standardOutput = ConsoleStream(descriptor: 1)
    static let standardError = ConsoleStream(descriptor: 2)

    let descriptor: Int32
    private let lock = NSLock()
    private var closed = false

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// True once a write failed: nothing more is written.
    var isClosed: Bool { lock.withLock { closed } }

    /// Writes all of `data`, unless the stream is closed or closes on the way.
    func write(_ data: Data) {
        lock.withLock {
            guard !closed, !data.isEmpty else { return }
            data.withUnsafeBytes { raw in
                var done = 0
                while done < raw.count {
                    let written = cWrite(descriptor, raw.baseAddress! + done, raw.count - done)
                    if written > 0 {
                        done += written
                        continue
                    }
                    let code = written < 0 ? errno : EIO
                    if code == EINTR { continue }
                    if code == EAGAIN || code == EWOULDBLOCK, waitUntilWritable() { continue }
                    // EPIPE, EBADF and the rest: the reader is gone, or never was.
                    closed = true
                    return
                }
            }
        }
    }

    /// Waits until the descriptor takes more bytes; false when it never will (an error or a hang-up).
    private func waitUntilWritable() -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        while true {
            let ready = poll(&entry, 1, -1)
            if ready < 0, errno == EINTR { continue }
            return ready == 1 && entry.revents & Int16(POLLOUT) != 0
        }
    }

    /// Makes sure descriptors 0, 1 and 2 are open, at start-up, before anything else opens a
    /// file: one the caller closed (`2>&-`) is opened on `/dev/null`, and its stream marked
    /// closed. Otherwise the next file opened (the container's lock, its journal) would get the
    /// free number, and the lines meant for stderr would be written into it.
    static func reserveStandardDescriptors() {
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let null = open("/dev/null", O_RDWR)
            if null >= 0, null != fd {
                dup2(null, fd)
                close(null)
            }
            if fd == 1 { standardOutput.lock.withLock { standardOutput.closed = true } }
            if fd == 2 { standardError.lock.withLock { standardError.closed = true } }
        }
    }

    /// Ignores SIGPIPE for the whole process, at start-up: a write to a pipe whose reader has gone
    /// then fails with EPIPE, which `write` handles, instead of killing the process mid-run (lock
    /// file, `.spool/` and no `manifest.json` left behind). libcurl is told `CURLOPT_NOSIGNAL`
    /// (it runs on threads), so it neither installs nor restores a SIGPIPE handler of its own;
    /// its socket writes, and OpenSSL's under it, can then never raise the signal either.
    static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }
}

/// The C library's `write(2)`, whose name `ConsoleStream.write` reuses.
private func cWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(fd, bytes, count) }
