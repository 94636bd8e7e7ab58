import Foundation
import PushPayloads
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

@Suite("Container: atomic writes, lock, folders", .tags(.slow), .notInFastTier)
struct ContainerTests {
    @Test func atomicWriteLeavesOnlyTheFinalFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let target = dir.url.appendingPathComponent("a.jpg")
        let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        try AtomicWriter.write(bytes, to: target)
        #expect(try Data(contentsOf: target) == bytes)
        #expect(dir.names() == ["a.jpg"])
        let mode = try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int
        #expect(mode == 0o644)
        // Overwrite is atomic too.
        try AtomicWriter.write(Data("x".utf8), to: target)
        #expect(try Data(contentsOf: target) == Data("x".utf8))
        #expect(dir.names() == ["a.jpg"])
    }

    @Test func emptyDataWritesAnEmptyFile() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let target = dir.url.appendingPathComponent("empty.bin")
        try AtomicWriter.write(Data(), to: target)
        #expect(try Data(contentsOf: target).isEmpty)
    }

    @Test func missingFolderFailsNamingPathAndCall() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let target = dir.url.appendingPathComponent("nope/a.jpg")
        #expect {
            try AtomicWriter.write(Data("x".utf8), to: target)
        } throws: { error in
            guard let error = error as? ContainerError, case let .system(call, path, code) = error else { return false }
            // The error names the final path, not the temporary (gone by the time it is read).
            return call == "open" && path.hasSuffix("nope/a.jpg") && code == ENOENT
                && error.description.contains("does not exist")
        }
    }

    @Test func failedRenameRemovesTheTemporary() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // A non-empty folder where the file should go: rename(2) fails after the data is written.
        let target = dir.url.appendingPathComponent("taken")
        try FileManager.default.createDirectory(
            at: target.appendingPathComponent("inner"), withIntermediateDirectories: true)
        #expect {
            try AtomicWriter.write(Data("x".utf8), to: target)
        } throws: { error in
            guard case let .system(call, _, _) = error as? ContainerError else { return false }
            return call == "rename"
        }
        #expect(dir.names() == ["taken"])
    }

    @Test func fileWhereFolderExpectedIsRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let blocker = try dir.file("blocker", "not a folder")
        #expect(throws: ContainerError.system(call: "mkdir", path: blocker.path, errno: ENOTDIR)) {
            _ = try Container.open(at: blocker)
        }
        #expect(throws: ContainerError.self) {
            try AtomicWriter.write(Data("x".utf8), to: blocker.appendingPathComponent("a.jpg"))
        }
    }

    @Test func secondLockIsRefusedWithHolderPID() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let first = try ContainerLock(directory: dir.url)
        #expect(throws: ContainerError.locked(path: first.path, holderPID: getpid())) {
            _ = try ContainerLock(directory: dir.url)
        }
        let error = ContainerError.locked(path: first.path, holderPID: getpid())
        #expect(error.description.contains("process \(getpid())"))
        first.release()
        let again = try ContainerLock(directory: dir.url)
        again.release()
    }

    @Test func openCreatesFoldersLocksAndCleansStaleTemporaries() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let root = dir.url.appendingPathComponent("out/deeper")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("Images"), withIntermediateDirectories: true)
        try Data("partial".utf8).write(to: root.appendingPathComponent("Images/.X-cat.jpg.tmp-0badf00d"))
        try Data("keep".utf8).write(to: root.appendingPathComponent("Images/.keep.tmp-notes"))
        let container = try Container.open(at: root)
        #expect(
            Set(FileManager.default.subpaths(atPath: root.path) ?? []).isSuperset(of: [
                "Images", "Audio", "Video", "Thumbnails", ".pushattach.lock",
            ]))
        #expect(dir.names(in: "out/deeper/Images") == [".keep.tmp-notes"])
        #expect(throws: ContainerError.self) { _ = try Container.open(at: root) }

        let name = AttachmentName(
            uuid: UUID(uuidString: "0AF39F86-695F-5B4F-8503-15EF9F8EA23C")!, suggestedFilename: "cat.webp",
            fileExtension: "jpg")
        let relative = try container.write(Data("jpeg".utf8), named: name, in: Container.Folder(.image))
        #expect(relative == "Images/0AF39F86-695F-5B4F-8503-15EF9F8EA23C-cat.jpg")
        #expect(try Data(contentsOf: root.appendingPathComponent(relative)) == Data("jpeg".utf8))
        #expect(Container.Folder(.movie) == .video)
        #expect(Container.Folder(.audio) == .audio)
    }

    @Test func errorAdviceForFatalCodes() {
        let full = ContainerError.system(call: "write", path: "/c/Images/x.jpg", errno: ENOSPC)
        #expect(full.isFatal)
        #expect(full.description.contains("disk full"))
        #expect(full.description.contains("/c/Images/x.jpg"))
        let readOnly = ContainerError.system(call: "open", path: "/c", errno: EROFS)
        #expect(readOnly.isFatal)
        #expect(readOnly.description.contains("container not writable"))
        #expect(!ContainerError.system(call: "open", path: "/c", errno: ENOENT).isFatal)
    }

    @Test func resumeRemovesUnreferencedFilesOnly() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let container = try Container.open(at: dir.url)
        let kept = AttachmentName(uuid: UUID(), suggestedFilename: "kept", fileExtension: "jpg")
        let orphan = AttachmentName(uuid: UUID(), suggestedFilename: "orphan", fileExtension: "mp3")
        let keptPath = try container.write(Data("a".utf8), named: kept, in: .images)
        let orphanPath = try container.write(Data("b".utf8), named: orphan, in: .audio)
        let removed = container.removeUnreferencedFiles(keeping: [keptPath])
        #expect(removed == [orphanPath])
        #expect(dir.names(in: "Images") == [kept.fileName])
        #expect(dir.names(in: "Audio").isEmpty)
    }
}
