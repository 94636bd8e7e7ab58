import Foundation
import SystemSupport

/// A body written to its `Spool` as it streamed. The file is unlinked when the last reference
/// goes, unless the owner moved it out of the spool first (`didMove()`); its bytes count
/// against the spool's budget until then.
///
///     if case .file(let file) = response.content {
///         let head = try file.prefix(64)     // for sniffing
///         let all = try file.mapped()        // for a decoder that takes Data: no copy
///         file.digest                        // the spool's digest of all of it
///     }
package final class SpooledFile: @unchecked Sendable {
    /// The file's name in the spool folder.
    package let name: String
    /// The spool folder plus `name`, for messages.
    package let path: String
    /// The body's length in bytes.
    package let size: Int
    /// The spool's `BodyDigest` of the whole body (`Spool.makeDigest`), or nil without one.
    package let digest: String?
    /// The file, open read-write.
    package let descriptor: Int32
    /// The spool folder's descriptor (owned by `spool`).
    package var directoryDescriptor: Int32 { spool.directory }
    private let spool: Spool
    private let reservation: SpoolReservation
    private let lock = NSLock()
    private var moved = false

    init(
        name: String, size: Int, digest: String?, descriptor: Int32, spool: Spool, reservation: SpoolReservation
    ) {
        self.name = name
        path = spool.path(of: name)
        self.size = size
        self.digest = digest
        self.descriptor = descriptor
        self.spool = spool
        self.reservation = reservation
    }

    deinit {
        try? SystemCall.close(descriptor, path: path)
        if !moved { try? SystemCall.unlink(in: spool.directory, name, path: path) }
        reservation.release()
    }

    /// The first `count` bytes (fewer when the body is shorter), read with `pread`.
    package func prefix(_ count: Int) throws(SpoolFailure) -> Data {
        let wanted = min(max(0, count), size)
        var data = Data(count: wanted)
        let fd = descriptor
        let path = path
        let result: Result<Int, SpoolFailure> = data.withUnsafeMutableBytes { raw in
            Result { () throws(SpoolFailure) in
                try SpoolFailure.calling(path) { () throws(ContainerError) in try SystemCall.readFully(fd, into: raw, at: 0, path: path) }
            }
        }
        data.count = try result.get()
        return data
    }

    /// The whole body mapped read-only (`mmap`): pages are read from the file as they are
    /// touched and may be dropped again by the kernel, so the body never needs a heap copy.
    /// Valid after the file is moved or unlinked.
    package func mapped() throws(SpoolFailure) -> Data {
        let (fd, size, path) = (descriptor, size, path)
        return try SpoolFailure.calling(path) { () throws(ContainerError) in try SystemCall.map(fd, size: size, path: path) }
    }

    /// Tells the file its owner renamed it out of the spool folder: from then on it is not
    /// unlinked, and its bytes do not count against the budget.
    package func didMove() {
        lock.withLock { moved = true }
        reservation.release()
    }
}

/// A body on its way to a spool file, on the transfer thread.
final class SpoolWriter {
    private let spool: Spool
    private let reservation: SpoolReservation
    let name: String
    let path: String
    private var fd: Int32
    private(set) var size = 0
    private var digest: (any BodyDigest)?

    init(spool: Spool, reservation: SpoolReservation) throws(SpoolFailure) {
        self.spool = spool
        self.reservation = reservation
        name = spool.uniqueName()
        path = spool.path(of: name)
        let directory = spool.directory
        let (name, path) = (name, path)
        // A new file, read-write, never an existing name or a link.
        fd = try SpoolFailure.calling(path) { () throws(ContainerError) in
            try SystemCall.open(in: directory, name, .readWrite, [.create, .exclusive, .noFollow], permissions: 0o666, path: path)
        }
    }

    deinit { discard() }

    func write(_ bytes: UnsafeRawBufferPointer) throws(SpoolFailure) {
        guard bytes.count > 0 else { return }
        let (fd, path) = (fd, path)
        try SpoolFailure.calling(path) { () throws(ContainerError) in try SystemCall.writeAll(fd, bytes, path: path) }
        // The first write is the flush of the bytes held below the threshold: the header.
        if size == 0 { digest = spool.makeDigest?(bytes) }
        digest?.update(bytes)
        size += bytes.count
    }

    /// The finished file; the reservation shrinks to its size.
    func finish() -> SpooledFile {
        reservation.shrink(to: size)
        let file = SpooledFile(
            name: name, size: size, digest: digest?.finish(), descriptor: fd, spool: spool, reservation: reservation)
        fd = -1
        return file
    }

    /// Closes and unlinks the file and gives its reservation back. Safe to call more than once.
    func discard() {
        guard fd >= 0 else { return }
        try? SystemCall.close(fd, path: path)
        fd = -1
        try? SystemCall.unlink(in: spool.directory, name, path: path)
        reservation.release()
    }
}
