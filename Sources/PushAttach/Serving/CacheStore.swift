import Foundation
import SystemSupport

/// The files of an on-disk answer cache, shared by any number of processes: one file per key,
/// a short text head (status, content type, type hint, hash, length) then the body, written
/// with `AtomicFile` so a reader sees a whole entry or none. Under `root`:
///
///     entries/3f/3fa9…c1     one entry; the two-digit folder is the key's first byte
///     leases/3fa9…c1         held (flock) by the process preparing that key, while it does
///     .evict.lock            held (flock) by the one process evicting at a time
///
/// Least recently used entries go first when the files pass `capacity`: a hit moves an entry's
/// modification time forward (at most once a minute), eviction removes the oldest. Removing a
/// file another process is sending is safe (its descriptor keeps the data), and a writer's
/// rename puts a new entry in place whole. Entries other than 200 expire after `rejectionTTL`.
package final class CacheStore: @unchecked Sendable {
    /// What an entry's head says.
    package struct Record: Sendable, Hashable {
        /// The HTTP status it answers with (200, or the status of a cached refusal).
        package var status: Int
        package var contentType: String
        /// The UTI for `UNNotificationAttachmentOptionsTypeHintKey` (200 only).
        package var typeHint: String?
        /// The body's SHA-256, lower-case hex.
        package var sha256: String?
        /// The `UNErrorCode` of a refusal.
        package var errorCode: Int?
        /// The body's length in bytes.
        package var length: Int

        package init(
            status: Int, contentType: String, typeHint: String? = nil, sha256: String? = nil, errorCode: Int? = nil,
            length: Int
        ) {
            self.status = status
            self.contentType = contentType
            self.typeHint = typeHint
            self.sha256 = sha256
            self.errorCode = errorCode
            self.length = length
        }
    }

    /// An entry opened for reading: its head, and the descriptor its body is read from.
    package final class OpenEntry: @unchecked Sendable {
        package let record: Record
        /// Where the body starts in the file.
        package let bodyOffset: Int
        /// Seconds since the entry was written.
        package let age: Double
        /// The entry's key, and which file it is: what `CacheStore.isCurrent` compares.
        package let key: String
        package let identity: SystemCall.FileIdentity
        private var fd: Int32
        private let path: String

        package init(
            record: Record, bodyOffset: Int, age: Double, key: String, identity: SystemCall.FileIdentity, fd: Int32,
            path: String
        ) {
            self.record = record
            self.bodyOffset = bodyOffset
            self.age = age
            self.key = key
            self.identity = identity
            self.fd = fd
            self.path = path
        }

        deinit { if fd >= 0 { try? SystemCall.close(fd, path: path) } }

        /// Hands the descriptor over (the caller closes it); -1 once taken.
        package func takeDescriptor() -> Int32 {
            defer { fd = -1 }
            return fd
        }

        /// A new descriptor of the same open file, for the caller to close; nil when it cannot be
        /// made (out of descriptors) or the descriptor was taken. The entry keeps its own.
        package func duplicateDescriptor() -> Int32? {
            guard fd >= 0 else { return nil }
            return try? SystemCall.duplicate(fd, path: path)
        }

        /// The body, read whole.
        package func body() throws(ContainerError) -> Data {
            guard fd >= 0 else { throw .system(call: "read", path: path, errno: EBADF) }
            var data = Data(count: record.length)
            let fd = fd
            let path = path
            let offset = bodyOffset
            let failure: ContainerError? = data.withUnsafeMutableBytes { raw in
                var done = 0
                while done < raw.count {
                    let rest = UnsafeMutableRawBufferPointer(rebasing: raw[done...])
                    do throws(ContainerError) {
                        let count = try SystemCall.read(fd, into: rest, at: offset + done, path: path)
                        if count == 0 { return .system(call: "read", path: path, errno: EIO) }
                        done += count
                    } catch { return error }
                }
                return nil
            }
            if let failure { throw failure }
            return data
        }
    }

    package let root: URL
    package let capacity: Int
    package let rejectionTTL: Double
    private let shards: [DirectoryHandle]
    private let leases: DirectoryHandle
    /// The cache folder, opened once: every name under it is reached from here, never by path.
    package let rootHandle: DirectoryHandle
    private let lock = NSLock()
    private var estimatedBytes = 0
    private var evicting = false
    private var heads: [String: KnownHead] = [:]
    /// Run by `store` between the rename and the entry's return (tests: another process's
    /// eviction at that moment).
    package var afterRenameForTesting: (@Sendable () -> Void)?

    private static let magic = "pushattach-cache 1\n"
    private static let headLimit = 4096

    /// Opens (creating when missing) the cache under `root`.
    package init(root: URL, capacity: Int, rejectionTTL: Double) throws(ContainerError) {
        do { try SystemCall.makeDirectory(root.path, permissions: 0o755) } catch {
            guard case .system(_, _, EEXIST) = error else { throw error }
        }
        rootHandle = try DirectoryHandle(resolving: root.path)
        self.root = root
        self.capacity = capacity
        self.rejectionTTL = rejectionTTL
        leases = try rootHandle.folder("leases", create: true)
        let entries = try rootHandle.folder("entries", create: true)
        var shards: [DirectoryHandle] = []
        for index in 0..<256 {
            shards.append(try entries.folder([UInt8(index)].hexString, create: true))
        }
        self.shards = shards
        estimatedBytes = scan().reduce(0) { $0 + $1.size }
    }

    /// The entry stored for `key` (64 lower-case hex digits), or nil when there is none, it is
    /// unreadable, or it is a refusal older than `rejectionTTL`.
    package func open(_ key: String) -> OpenEntry? {
        guard let folder = shard(key), let (fd, status) = try? folder.openFileWithStatus(key, .readOnly),
            let info = status
        else { return nil }
        let path = folder.path(of: key)
        guard let (record, offset) = head(of: fd, key: key, info: info, path: path), info.size == offset + record.length
        else {
            try? SystemCall.close(fd, path: path)
            return nil
        }
        let age = Date().timeIntervalSince1970 - info.modified
        if record.status != 200, age > rejectionTTL {
            try? SystemCall.close(fd, path: path)
            return nil
        }
        if record.status == 200, age > 60 { try? SystemCall.touch(fd, path: path) }
        return OpenEntry(
            record: record, bodyOffset: offset, age: age, key: key, identity: info.identity, fd: fd, path: path)
    }

    /// Whether `entry` is still the entry of its key: the same file under the name, with the
    /// same size. One `fstatat` of the name, nothing opened: for a caller that keeps an entry
    /// open between hits. A 200 still current counts as a hit for the least-recently-used
    /// order, as `open` does (its time moved forward at most once a minute); a refusal is
    /// current only within `rejectionTTL`.
    package func isCurrent(_ entry: OpenEntry) -> Bool {
        guard let folder = shard(entry.key), let info = try? folder.status(entry.key), info.kind == .regular,
            info.identity == entry.identity, info.size == entry.bodyOffset + entry.record.length
        else { return false }
        let age = Date().timeIntervalSince1970 - info.modified
        guard entry.record.status == 200 else { return age <= rejectionTTL }
        if age > 60 { try? folder.touch(entry.key) }
        return true
    }

    /// The head of the entry open as `fd`: remembered per key with the file's identity,
    /// size and modification time, so a hit on an unchanged file reads nothing but its status. A replaced
    /// entry (a new file under the name) or a touched one is read again.
    private func head(of fd: Int32, key: String, info: SystemCall.FileStatus, path: String) -> (Record, Int)? {
        let seen = lock.withLock { heads[key] }
        if let seen, seen.identity == info.identity, seen.size == info.size, seen.modified == info.modified {
            return (seen.record, seen.offset)
        }
        guard let (record, offset) = Self.readHead(fd, path: path) else { return nil }
        lock.withLock {
            if heads.count >= Self.headMemoLimit { heads.removeAll(keepingCapacity: true) }
            heads[key] = KnownHead(
                identity: info.identity, size: info.size, modified: info.modified, record: record, offset: offset)
        }
        return (record, offset)
    }

    private struct KnownHead {
        var identity: SystemCall.FileIdentity
        var size: Int
        var modified: Double
        var record: Record
        var offset: Int
    }

    /// Heads remembered at most (about 250 bytes each, 1 MB in all); the memo starts over when full.
    private static let headMemoLimit = 4096

    /// Stores `body` as the entry of `key`, replacing any; the head's length is `body.count`.
    /// Returns the entry, open before any eviction this store starts, so it can be sent even if
    /// that eviction (or another process's) removes it at once.
    @discardableResult
    package func store(_ key: String, record: Record, body: Data) throws(ContainerError) -> OpenEntry {
        var record = record
        record.length = body.count
        return try store(key, record: record) { file throws(ContainerError) in try file.append(body) }
    }

    /// Stores the file open as `fd` (named `path` in errors) as the entry of `key`, copied by
    /// the kernel (or, where it cannot copy between the two files, read and written in 1 MB
    /// pieces); the head's length is the file's size. Returns the entry, open (as
    /// `store(_:record:body:)`).
    @discardableResult
    package func store(_ key: String, record: Record, copying fd: Int32, path: String) throws(ContainerError) -> OpenEntry {
        var record = record
        record.length = try SystemCall.status(fd, path: path).size
        return try store(key, record: record) { file throws(ContainerError) in
            // In the kernel: through a buffer of ours, the 559 KB answer of a 12 MP JPEG takes
            // 1-3 ms to write (strace; the buffer's page faults, a copy each way), sendfile 0.3 ms.
            if try file.append(copying: fd, sourcePath: path, at: 0, count: record.length) { return }
            var offset = 0
            var chunk = Data(count: 1 << 20)
            while offset < record.length {
                let read: Result<Int, ContainerError> = chunk.withUnsafeMutableBytes { raw in
                    do throws(ContainerError) {
                        return .success(try SystemCall.read(fd, into: raw, at: offset, path: path))
                    } catch { return .failure(error) }
                }
                let count = try read.get()
                guard count > 0 else { throw .system(call: "read", path: path, errno: EIO) }
                try file.append(chunk.prefix(count))
                offset += count
            }
        }
    }

    private func store(_ key: String, record: Record, body: (AtomicFile) throws(ContainerError) -> Void)
        throws(ContainerError) -> OpenEntry
    {
        guard let folder = shard(key) else {
            throw .refusedPath(call: "open", path: key, reason: "a cache key is 64 lower-case hex digits")
        }
        let file = try AtomicFile(in: folder, name: key, readable: true)
        let head = Self.head(record)
        try file.append(head)
        try body(file)
        // The descriptor written through is the entry: another process's eviction may remove the
        // name between the rename and any open by name.
        let fd = try file.commitKeepingDescriptor()
        afterRenameForTesting?()
        let path = folder.path(of: key)
        let identity: SystemCall.FileIdentity
        do { identity = try SystemCall.status(fd, path: path).identity } catch {
            try? SystemCall.close(fd, path: path)
            throw error
        }
        let entry = OpenEntry(
            record: record, bodyOffset: head.count, age: 0, key: key, identity: identity, fd: fd, path: path)
        let over: Bool = lock.withLock {
            estimatedBytes += head.count + record.length
            return estimatedBytes > capacity
        }
        if over { evict() }
        return entry
    }

    // MARK: - Leases

    /// The lease of `key`, held by this caller until `release()`: an exclusive `flock` on
    /// `leases/<key>`. Nil while another holder has it (another process, or another caller in
    /// this one). The kernel drops the lock of a process that dies, so a killed holder's lease
    /// is free at once; its file stays until the next holder releases it.
    ///
    /// A holder removes the file before it lets go, so a name is never left locked by nobody but
    /// a file is: a caller whose locked file is not the one at the name (removed, or replaced by a
    /// new one, between its open and its lock) lets it go and tries again.
    package func lease(_ key: String) throws(ContainerError) -> LeaseFile? {
        guard shard(key) != nil else {
            throw .refusedPath(call: "open", path: key, reason: "a cache key is 64 lower-case hex digits")
        }
        let path = leases.path(of: key)
        for _ in 0..<16 {
            let (fd, status) = try leases.openFileWithStatus(key, .readWrite, [.create], permissions: 0o644)
            do {
                try SystemCall.lockExclusive(fd, path: path)
            } catch {
                try? SystemCall.close(fd, path: path)
                if case .system(_, _, EWOULDBLOCK) = error { return nil }
                throw error
            }
            if let status, (try? leases.status(key))?.identity == status.identity {
                return LeaseFile(fd: fd, folder: leases, name: key)
            }
            try? SystemCall.close(fd, path: path)
        }
        // Taken and let go sixteen times over between an open and a lock: as good as held.
        return nil
    }

    /// A held lease (`lease(_:)`); released once, by `release()` or when it goes.
    package final class LeaseFile: @unchecked Sendable {
        private let lock = NSLock()
        private var fd: Int32
        private let folder: DirectoryHandle
        private let name: String

        fileprivate init(fd: Int32, folder: DirectoryHandle, name: String) {
            self.fd = fd
            self.folder = folder
            self.name = name
        }

        deinit { release() }

        /// Removes the lease's file, then unlocks it. Safe to call more than once.
        package func release() {
            let held: Int32 = lock.withLock {
                defer { fd = -1 }
                return fd
            }
            guard held >= 0 else { return }
            try? folder.remove(name)
            try? SystemCall.close(held, path: folder.path(of: name))
        }
    }

    /// Bytes of entries, as this process last counted them (exact after each eviction).
    package var usage: Int { lock.withLock { estimatedBytes } }

    /// Removes expired refusals and left-over temporaries, then the least recently used entries
    /// until the cache is under 90 % of `capacity`. Skipped when another process (or thread) is
    /// evicting already. Returns the entries removed.
    @discardableResult
    package func evict() -> Int {
        let mine: Bool = lock.withLock {
            if evicting { return false }
            evicting = true
            return true
        }
        guard mine else { return 0 }
        defer { lock.withLock { evicting = false } }
        guard let lockFD = try? rootHandle.openFile(".evict.lock", .readWrite, [.create], permissions: 0o644)
        else { return 0 }
        defer { try? SystemCall.close(lockFD, path: rootHandle.path(of: ".evict.lock")) }
        guard (try? SystemCall.lockExclusive(lockFD, path: rootHandle.path(of: ".evict.lock"))) != nil else { return 0 }
        return removeOldest()
    }

    private struct Found {
        var shard: Int
        var name: String
        var size: Int
        var modified: Double
        var isRefusal: Bool
    }

    private func removeOldest() -> Int {
        let now = Date().timeIntervalSince1970
        var removed = 0
        var kept: [Found] = []
        for entry in scan() {
            let expired = entry.isRefusal && now - entry.modified > rejectionTTL
            if expired, (try? shards[entry.shard].remove(entry.name)) != nil {
                removed += 1
            } else {
                kept.append(entry)
            }
        }
        var total = kept.reduce(0) { $0 + $1.size }
        let target = capacity / 10 * 9
        for entry in kept.sorted(by: { $0.modified < $1.modified }) where total > target {
            if (try? shards[entry.shard].remove(entry.name)) != nil {
                total -= entry.size
                removed += 1
            }
        }
        lock.withLock { estimatedBytes = total }
        return removed
    }

    /// Every entry on disk; temporaries older than an hour (a writer that crashed) are removed.
    private func scan() -> [Found] {
        let now = Date().timeIntervalSince1970
        var found: [Found] = []
        for (index, folder) in shards.enumerated() {
            guard let names = try? folder.names() else { continue }
            for name in names {
                guard let info = try? folder.status(name), info.kind == .regular else { continue }
                if AtomicWriter.isTemporaryName(name) {
                    if now - info.modified > 3600 { try? folder.remove(name) }
                    continue
                }
                // A refusal's head is read only when it could have expired; its size is small.
                let refusal = info.size < Self.headLimit && isRefusal(folder, name)
                found.append(Found(shard: index, name: name, size: info.size, modified: info.modified, isRefusal: refusal))
            }
        }
        return found
    }

    private func isRefusal(_ folder: DirectoryHandle, _ name: String) -> Bool {
        guard let fd = try? folder.openFileIfPresent(name) else { return false }
        defer { try? SystemCall.close(fd, path: folder.path(of: name)) }
        return Self.readHead(fd, path: folder.path(of: name)).map { $0.0.status != 200 } ?? false
    }

    private func shard(_ key: String) -> DirectoryHandle? {
        guard key.utf8.count == 64, key.utf8.allSatisfy({ Self.isLowerHex($0) }),
            let index = UInt8(key.prefix(2), radix: 16)
        else { return nil }
        return shards[Int(index)]
    }

    // MARK: - The head

    package static func head(_ record: Record) -> Data {
        var lines = Self.magic + "status=\(record.status)\n" + "type=\(oneLine(record.contentType))\n"
        if let typeHint = record.typeHint { lines += "hint=\(oneLine(typeHint))\n" }
        if let sha256 = record.sha256 { lines += "sha256=\(oneLine(sha256))\n" }
        if let code = record.errorCode { lines += "code=\(code)\n" }
        lines += "length=\(record.length)\n\n"
        return Data(lines.utf8)
    }

    /// The head of the entry open as `fd`, and where its body starts; nil when it is not one.
    package static func readHead(_ fd: Int32, path: String) -> (Record, Int)? {
        var buffer = [UInt8](repeating: 0, count: headLimit)
        let read: Int? = buffer.withUnsafeMutableBytes { raw in try? SystemCall.read(fd, into: raw, at: 0, path: path) }
        guard let count = read else { return nil }
        let bytes = buffer[..<count]
        guard let end = bytes.firstRange(of: [0x0A, 0x0A]) else { return nil }
        let text = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
        guard text.hasPrefix(magic) else { return nil }
        var fields: [Substring: Substring] = [:]
        for line in text.dropFirst(magic.count).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { return nil }
            fields[line[..<equals]] = line[line.index(after: equals)...]
        }
        guard let status = fields["status"].flatMap({ Int($0) }), let type = fields["type"],
            let length = fields["length"].flatMap({ Int($0) })
        else { return nil }
        let record = Record(
            status: status, contentType: String(type), typeHint: fields["hint"].map(String.init),
            sha256: fields["sha256"].map(String.init), errorCode: fields["code"].flatMap { Int($0) }, length: length)
        return (record, end.upperBound)
    }

    private static func oneLine(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
