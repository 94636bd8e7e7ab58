import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

// # Fault injection
//
// `FaultInjectionTests` runs the built `pushattach prepare` against a loopback server and breaks
// the container under it. Each case must end with a clear error (what, where, what to do) and
// nothing lost: no temporary or partial file under a final name, `manifest.jsonl` and
// `manifest.json` agreeing with the files on disk one for one (`PrepareFixture.inconsistencies`),
// and `--resume` finishing the run afterwards.
//
// | fault | how it is made | outcome |
// |---|---|---|
// | full disk | `mount -t tmpfs -o size=512k`, 120 × 13 KB | exit 2, `write(2) failed for …/Images/<name>.jpg: No space left on device — disk full: free some space, then re-run with --resume`; then `remount,size=16m` and `--resume` → 0 |
// | read-only container | a finished run, then `remount,ro` | exit 2, `… Read-only file system — container not writable`; journal untouched; `remount,rw` + `--resume` → 0 |
// | permission-denied folder | `Images/` mode 000, run as uid 65534 (`setpriv`), root ignores mode bits | exit 2 at open, before any download: `access(2) failed for …/Images: Permission denied — container not writable` (the container cannot take images, so every image item would fail: fatal, not per item) |
// | manifest deleted mid-run | `rm manifest.jsonl` while a run waits on downloads the test server holds | the journal sees its inode unlinked (`fstat` nlink 0) before the next append and copies the still-open file back to its path; a note says so; exit 0 and `manifest.json` lists every item |
// | two runs at once | a second `prepare`, with or without `--resume` | exit 2 (a container problem, not a usage error), `container is in use: process PID holds …/.pushattach.lock`; the first finishes unharmed |
// | SIGTERM | like the SIGINT test | manifest written, exit 143 (128 + 15; SIGINT stays 130); `--resume` finishes |
//
// Needs root (or CAP_SYS_ADMIN) for the tmpfs cases and root + util-linux `setpriv` for the
// permission case; without them those tests are skipped with the reason (`.enabled(if:)`). The
// rest run unprivileged.
//
// Also: when the journal cannot take an entry (disk full), the item's freshly written files are
// removed again, and a journal line cut short by a failed write is truncated off, so the
// container stays consistent; items finishing after the fatal error are still recorded if the
// journal can take them.

/// The container on a full disk, read-only, with a folder the run may not
/// enter, its manifest deleted mid-run, two runs at once, SIGTERM. Each must end with a clear
/// error (what, where, what to do) and nothing lost: no partial file under a final name, the
/// journal and `manifest.json` agreeing with the files on disk one for one, and `--resume`
/// finishing the run afterwards.
///
/// The decisions these tests pin down:
/// - A full disk, a read-only container and a folder the run may not write into are fatal:
///   exit 2, because every later item would fail the same way. The folder check happens when
///   the container is opened, before anything is downloaded.
/// - A second run on a container in use is refused through the lock: exit 2 (fatal, like every
///   container problem; not 64, the command line is fine), naming the holder's PID. It is not
///   told to pass --resume, since that would be refused too.
/// - A deleted `manifest.jsonl` is put back from the journal's still-open descriptor, with every
///   entry so far, and a note says so.
/// - SIGTERM is handled as SIGINT, and exits 128 + 15 = 143.
@Suite("Fault injection (prepare binary)", .serialized, .ownThread, .tags(.slow), .notInFastTier)
struct FaultInjectionTests {
    private func arguments(_ list: String, _ container: URL) -> [String] {
        ["prepare", list, "--container", container.path, "--allow-private-networks", "--retries", "0"]
    }

    @Test(.enabled(if: Privileges.canMountTmpfs, Privileges.mountReason))
    func fullDiskIsFatalAndResumable() throws {
        let f = try PrepareFixture()
        let disk = try Tmpfs(at: f.dir.url.appendingPathComponent("disk"), options: "size=512k")
        defer { disk.unmount() }
        // 120 × 13 KB does not fit in 512 KB.
        let urls = f.images(count: 120)
        let list = try f.list(urls)
        let container = disk.url.appendingPathComponent("out")

        let full = try ProcessRunner.run("pushattach", arguments(list, container))
        #expect(full.status == 2, "\(full.stderr)")
        #expect(full.stderr.contains("disk full"), "\(full.stderr)")
        #expect(full.stderr.contains("No space left on device"))
        #expect(full.stderr.contains(container.path + "/"), "the error names the path: \(full.stderr)")
        #expect(try f.inconsistencies(container) == [])
        let before = try Manifest.readJournal(dir: container).entries
        #expect(before.count < 120)

        // Make room, then --resume finishes the run.
        try disk.remount("size=16m")
        let resumed = try ProcessRunner.run("pushattach", arguments(list, container) + ["--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let entries = try f.manifestEntries(container)
        #expect(entries.count == 120 && entries.allSatisfy { $0.status == .prepared })
        #expect(Set(entries.map(\.input)) == Set(urls))
        #expect(Set(entries.compactMap(\.file)) == f.attachmentFiles(container))
        #expect(try f.inconsistencies(container) == [])
    }

    @Test(.enabled(if: Privileges.canMountTmpfs, Privileges.mountReason))
    func readOnlyContainerIsFatalAndLeftUntouched() throws {
        let f = try PrepareFixture()
        let disk = try Tmpfs(at: f.dir.url.appendingPathComponent("disk"), options: "size=4m")
        defer { disk.unmount() }
        let urls = f.images(count: 4)
        let container = disk.url.appendingPathComponent("out")
        let first = try ProcessRunner.run("pushattach", arguments(try f.list(Array(urls.prefix(2))), container))
        #expect(first.status == 0, "\(first.stderr)")
        let journalBefore = try Data(contentsOf: container.appendingPathComponent(ManifestJournal.fileName))

        try disk.remount("ro")
        let list = try f.list(urls)
        let refused = try ProcessRunner.run("pushattach", arguments(list, container) + ["--resume"])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("container not writable"), "\(refused.stderr)")
        #expect(refused.stderr.contains("Read-only file system"))
        #expect(refused.stderr.contains(container.path))
        #expect(try Data(contentsOf: container.appendingPathComponent(ManifestJournal.fileName)) == journalBefore)

        try disk.remount("rw")
        let resumed = try ProcessRunner.run("pushattach", arguments(list, container) + ["--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try f.manifestEntries(container).count == 4)
        #expect(try f.inconsistencies(container) == [])
    }

    /// Root ignores permission bits, so the binary runs as uid/gid 65534 (setpriv) on a
    /// container it owns, except for `Images/`, mode 000. The container is unusable for images,
    /// so this is fatal (exit 2) at open, naming `Images/`, before anything is downloaded.
    @Test(.enabled(if: Privileges.canDropToNobody, Privileges.dropReason))
    func permissionDeniedFolderIsFatalNamingIt() throws {
        let f = try PrepareFixture()
        let container = f.container
        for folder in Container.Folder.allCases {
            try FileManager.default.createDirectory(
                at: container.appendingPathComponent(folder.rawValue), withIntermediateDirectories: true)
        }
        for path in [container.path]
            + Container.Folder.allCases.map({ container.appendingPathComponent($0.rawValue).path })
        {
            #expect(chown(path, Privileges.nobody, Privileges.nobody) == 0)
        }
        let images = container.appendingPathComponent("Images")
        #expect(chmod(images.path, 0o000) == 0)
        defer { chmod(images.path, 0o755) }
        let urls = f.images(count: 3)
        let list = try f.list(urls)
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", ProcessRunner.product("pushattach").path]

        let denied = try ProcessRunner.runExecutable(
            URL(fileURLWithPath: "/usr/bin/setpriv"), asNobody + arguments(list, container))
        #expect(denied.status == 2, "\(denied.stderr)")
        #expect(denied.stderr.contains("Permission denied"), "\(denied.stderr)")
        #expect(denied.stderr.contains(images.path), "names Images/: \(denied.stderr)")
        #expect(denied.stderr.contains("container not writable"))
        #expect(f.server.connectionsAccepted == 0, "nothing is downloaded into a container that cannot take it")
        #expect(try f.inconsistencies(container) == [])

        #expect(chmod(images.path, 0o755) == 0)
        let fixed = try ProcessRunner.runExecutable(
            URL(fileURLWithPath: "/usr/bin/setpriv"), asNobody + arguments(list, container))
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(try f.manifestEntries(container).count == 3)
        #expect(try f.inconsistencies(container) == [])
    }

    /// Deleted once 10 items are done and the rest are held at the server; then they are let go.
    @Test func manifestDeletedMidRunIsRecreated() throws {
        let f = try PrepareFixture()
        let window = 4
        let (urls, gate) = f.heldImages(count: 120, served: 10)
        let container = f.container
        let (process, log) = try f.start(
            arguments(try f.list(urls), container) + PrepareFixture.heldRunOptions(window: window))
        let filled = f.waitForHeldWindow(gate, window: window)
        let linesBefore = f.journalLines(container)
        let stillRunning = process.isRunning
        try FileManager.default.removeItem(at: container.appendingPathComponent(ManifestJournal.fileName))
        gate.open()
        process.waitUntilExit()
        let stderr = try String(contentsOf: log, encoding: .utf8)

        #expect(filled, "the run never had its window of downloads held")
        #expect(linesBefore == 10)
        #expect(stillRunning, "the run finished before the manifest was deleted")
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(stderr.contains("manifest.jsonl was deleted during the run; recreated it"), "\(stderr)")
        let entries = try f.manifestEntries(container)
        #expect(entries.count == 120 && entries.allSatisfy { $0.status == .prepared })
        #expect(Set(entries.map(\.input)) == Set(urls))
        #expect(Set(entries.compactMap(\.file)) == f.attachmentFiles(container))
        #expect(f.attachmentFiles(container).count == 120)
        #expect(try f.inconsistencies(container) == [])
    }

    /// The second run comes while the first has 5 items done and the rest held at the server.
    @Test func secondRunIsRefusedThroughTheLock() throws {
        let f = try PrepareFixture()
        let window = 4
        let (urls, gate) = f.heldImages(count: 120, served: 5)
        let container = f.container
        let list = try f.list(urls)
        let (first, log) = try f.start(arguments(list, container) + PrepareFixture.heldRunOptions(window: window))
        #expect(f.waitForHeldWindow(gate, window: window), "the first run never had its window of downloads held")
        #expect(first.isRunning, "the first run finished too soon")

        for extra in [[], ["--resume"]] {
            let second = try ProcessRunner.run("pushattach", arguments(list, container) + extra)
            #expect(second.status == 2, "\(extra): \(second.stderr)")
            #expect(second.stderr.contains("container is in use"), "\(second.stderr)")
            #expect(second.stderr.contains("process \(first.processIdentifier) holds"), "\(second.stderr)")
            #expect(second.stderr.contains(ContainerLock.fileName))
        }

        gate.open()
        first.waitUntilExit()
        #expect(first.terminationStatus == 0, "\((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        let entries = try f.manifestEntries(container)
        #expect(entries.count == 120 && entries.allSatisfy { $0.status == .prepared })
        #expect(f.attachmentFiles(container).count == 120)
        #expect(try f.inconsistencies(container) == [])
    }

    /// Terminated once 10 items are done and the rest are held at the server.
    @Test func sigtermWritesTheManifestAndExits143() throws {
        let f = try PrepareFixture()
        let window = 4
        let (urls, gate) = f.heldImages(count: 120, served: 10)
        let container = f.container
        let arguments = arguments(try f.list(urls), container) + PrepareFixture.heldRunOptions(window: window)
        let (terminated, linesAtSignal) = try f.runAndSignal(arguments, gate: gate, window: window, signal: SIGTERM)
        #expect(linesAtSignal == 10, "the journal when SIGTERM was sent")
        #expect(terminated.terminationReason == .exit && terminated.terminationStatus == 143)
        let entries = try f.manifestEntries(container)
        #expect(entries.count == 10 && entries.allSatisfy { $0.status == .prepared })
        #expect(try f.inconsistencies(container) == [])
        let resumed = try ProcessRunner.run("pushattach", arguments + ["--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("already prepared (skipped)"))
        #expect(try f.manifestEntries(container).count == 120)
        #expect(try f.inconsistencies(container) == [])
    }
}

/// The journal's own recovery, in process.
@Suite("Manifest journal faults", .tags(.slow), .notInFastTier)
struct ManifestJournalFaultTests {
    @Test func deletedJournalIsRecreatedWithEveryLine() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try ManifestJournal(directory: dir.url)
        let first = ManifestEntry(input: "https://a.example/1.jpg", line: 1, status: .failed, reason: "one")
        let second = ManifestEntry(input: "https://a.example/2.jpg", line: 2, status: .failed, reason: "two")
        #expect(try journal.append(first).recreated == false)
        try FileManager.default.removeItem(at: dir.url.appendingPathComponent(ManifestJournal.fileName))
        let appended = try journal.append(second)
        #expect(appended.recreated == true)
        #expect(try journal.read(appended) == second)
        #expect(journal.recreations == 1)
        // Deleted again after the last append: close() puts it back too.
        try FileManager.default.removeItem(at: dir.url.appendingPathComponent(ManifestJournal.fileName))
        try journal.close()
        let entries = try Manifest.readJournal(dir: dir.url).entries
        #expect(entries == [first, second])
        #expect(!dir.names().contains { $0.contains(".tmp-") })
    }
}
