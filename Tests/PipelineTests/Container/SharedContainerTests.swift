import Foundation
import PushPayloads
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// A container shared by the library preparers of several processes (`Access.sharedByProcesses`).
/// `flock` locks belong to open file descriptions, so two opens in this process hold the
/// container as two processes would.
@Suite("container: shared by processes", .tags(.slow), .notInFastTier)
struct SharedContainerTests {
    @Test func manyHoldersAtOnceEachWithItsOwnSpool() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let a = try Container.open(at: dir.url, access: .sharedByProcesses)
        let b = try Container.open(at: dir.url, access: .sharedByProcesses)
        #expect(a.spoolFolderName != b.spoolFolderName)
        #expect(a.spoolFolderName.hasPrefix(".spool.p-") && b.spoolFolderName.hasPrefix(".spool.p-"))
        // Both write; neither's files are touched by the other.
        let name = AttachmentName(uuid: UUID(), suggestedFilename: "cat", fileExtension: "jpg")
        let written = try a.write(Data([1, 2, 3]), named: name, in: .images)
        let other = try Container.open(at: dir.url, access: .sharedByProcesses)
        #expect(dir.names(in: "Images") == [String(written.dropFirst("Images/".count))])
        for container in [a, b, other] {
            container.removeSpoolFolder()
            container.lock.release()
        }
        #expect(dir.names().filter { $0.hasPrefix(".spool") }.isEmpty, "\(dir.names())")
    }

    @Test func aBatchAndPreparersExcludeEachOther() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let shared = try Container.open(at: dir.url, access: .sharedByProcesses)
        #expect(throws: ContainerError.self) { try Container.open(at: dir.url, access: .exclusive) }
        shared.removeSpoolFolder()
        shared.lock.release()

        let batch = try Container.open(at: dir.url, access: .exclusive)
        do {
            _ = try Container.open(at: dir.url, access: .sharedByProcesses)
            Issue.record("a preparer opened a folder a batch holds")
        } catch {
            guard case .locked(_, let pid) = error else {
                Issue.record("expected .locked, got \(error)")
                return
            }
            #expect(pid == getpid(), "the batch's PID is named")
        }
        batch.lock.release()
    }

    @Test func theSpoolOfAProcessThatDiedIsRemovedAndNoOtherIs() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let fm = FileManager.default
        // Died: its owner file names a PID, nobody holds its lock, a body was left.
        let dead = dir.url.appendingPathComponent(".spool.p-dead")
        try fm.createDirectory(at: dead, withIntermediateDirectories: true)
        try Data("4242\n".utf8).write(to: dead.appendingPathComponent(Container.ownerFileName))
        try Data(repeating: 7, count: 100).write(to: dead.appendingPathComponent("body-1"))
        // Being set up: no PID written yet.
        let starting = dir.url.appendingPathComponent(".spool.p-starting")
        try fm.createDirectory(at: starting, withIntermediateDirectories: true)
        try Data().write(to: starting.appendingPathComponent(Container.ownerFileName))
        // Alive: held by an open container.
        let alive = try Container.open(at: dir.url, access: .sharedByProcesses)
        // A shard's spool is not a process's.
        try fm.createDirectory(at: dir.url.appendingPathComponent(".spool.0-of-2"), withIntermediateDirectories: true)

        let next = try Container.open(at: dir.url, access: .sharedByProcesses)
        let spools = Set(dir.names().filter { $0.hasPrefix(".spool") })
        #expect(!spools.contains(".spool.p-dead"))
        #expect(
            spools == [".spool.p-starting", alive.spoolFolderName, next.spoolFolderName, ".spool.0-of-2"],
            "\(spools)")
        for container in [alive, next] {
            container.removeSpoolFolder()
            container.lock.release()
        }
    }
}
