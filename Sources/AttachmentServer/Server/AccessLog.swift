import Foundation

/// One JSON line per request: time, client, method, route, cache key (a prefix of the digest),
/// status, bytes, milliseconds, cache path. No query string, signature or source URL is written,
/// so the log carries no secret and no user's URL. `reopen()` (on SIGHUP) lets logrotate move the
/// file away.
final class AccessLog: @unchecked Sendable {
    private let path: String?
    private let lock = NSLock()
    private var handle: FileHandle?

    /// A log to the file at `path` (appended to, created when missing), or to standard error for "-".
    init(path: String) {
        self.path = path == "-" ? nil : path
        handle = Self.open(self.path)
    }

    private static func open(_ path: String?) -> FileHandle? {
        guard let path else { return FileHandle.standardError }
        // Created when missing (an existing log is appended to); a file that cannot be created
        // shows as no handle just below.
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { return nil }
        handle.seekToEndOfFile()
        return handle
    }

    /// Closes and reopens the file (standard error stays as it is).
    func reopen() {
        guard path != nil else { return }
        lock.withLock {
            try? handle?.close()
            handle = Self.open(path)
        }
    }

    struct Line: Encodable {
        var time: String
        var client: String
        var method: String
        var route: String
        var key: String?
        var status: Int
        var bytes: Int
        var ms: Double
        var cache: String
    }

    func write(_ line: Line) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var data = try? encoder.encode(line) else { return }
        data.append(0x0A)
        lock.withLock { try? handle?.write(contentsOf: data) }
    }
}
