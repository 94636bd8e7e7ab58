import Foundation
import Testing

@testable import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `SystemCall.copy` (sendfile between files) and `AtomicFile.append(copying:at:count:)`, which
/// the cache uses to store a prepared file: the bytes arrive whole from the offset asked, a
/// source the kernel cannot copy from leaves the file untouched for the caller's fallback, and a
/// source shorter than the count is an error, not a short file.
@Suite("Files: copies made by the kernel", .tags(.slow), .notInFastTier)
struct KernelCopyTests {
    @Test func copiesTheBytesFromTheOffsetAfterWhatWasWritten() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let source = try dir.file("source.bin", bytes: bytes)
        let fd = try SystemCall.open(source.path, .readOnly)
        defer { try? SystemCall.close(fd, path: source.path) }
        let folder = try DirectoryHandle(opening: dir.url.path)

        let file = try AtomicFile(in: folder, name: "copy.bin")
        try file.append(Data("head\n".utf8))
        #expect(try file.append(copying: fd, sourcePath: source.path, at: 1000, count: 250_000))
        try file.commit()

        let copied = try Data(contentsOf: dir.url.appendingPathComponent("copy.bin"))
        #expect(copied == Data("head\n".utf8) + Data(bytes[1000..<251_000]))
    }

    @Test func aSourceTheKernelCannotCopyFromLeavesTheFileForTheFallback() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { for end in ends { close(end) } }
        _ = "not read".withCString { write(ends[1], $0, 8) }
        let folder = try DirectoryHandle(opening: dir.url.path)

        let file = try AtomicFile(in: folder, name: "copy.bin")
        try file.append(Data("head".utf8))
        // sendfile(2) from an offset needs a source it can seek: a pipe is refused at once.
        #expect(try file.append(copying: ends[0], sourcePath: "a pipe", at: 0, count: 8) == false)
        try file.append(Data("tail".utf8))
        try file.commit()
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("copy.bin")) == Data("headtail".utf8))
    }

    @Test func aSourceShorterThanTheCountFailsAndLeavesNothing() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let source = try dir.file("short.bin", bytes: [UInt8](repeating: 7, count: 100))
        let fd = try SystemCall.open(source.path, .readOnly)
        defer { try? SystemCall.close(fd, path: source.path) }
        let folder = try DirectoryHandle(opening: dir.url.path)

        let file = try AtomicFile(in: folder, name: "copy.bin")
        // The error names the source, which ended early, not the file being written.
        let error = #expect(throws: ContainerError.self) {
            _ = try file.append(copying: fd, sourcePath: source.path, at: 0, count: 200)
        }
        guard case .system(let call, let path, let code) = error else {
            Issue.record("expected a system call's error, got \(String(describing: error))")
            return
        }
        #expect(call == "sendfile")
        #expect(path == source.path)
        #expect(code == EIO)
        #expect(dir.names() == ["short.bin"])
    }
}
