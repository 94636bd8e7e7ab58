import Foundation
import PushPayloads
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// No way in through the container: whoever can write into the container folder plants a
/// symbolic link (or a hard link, or a pipe) where PushAttach keeps a file or a folder. The
/// plain attacks, then the neighbouring cases: the victim outside stays as it
/// was, nothing outside is appended to or deleted, and the run stops with an error naming the
/// path and what to do (in library terms: no flags).
@Suite("Container: symbolic links inside the container are refused, never followed", .tags(.slow), .notInFastTier)
struct ContainerSymlinkTests {
    // MARK: - The plain attacks

    /// `ln -s "$PWD/victim" d/.pushattach.lock`: a run that followed it would truncate the
    /// victim and write its PID into it.
    @Test func lockFileLinkedToAVictimIsRefused() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        let victim = try f.dir.file("victim", "IMPORTANT\n")
        let d = f.dir.url.appendingPathComponent("d")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: d.appendingPathComponent(ContainerLock.fileName).path, withDestinationPath: victim.path)

        let error = try await failure(of: f.options([f.server.url("/a.jpg")], container: d))
        #expect(error == .unsafeEntry(path: d.appendingPathComponent(".pushattach.lock").path, found: .symbolicLink))
        expectClear(error, naming: d.appendingPathComponent(".pushattach.lock").path)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "IMPORTANT\n")
        #expect(f.dir.names(in: "d") == [".pushattach.lock"], "nothing written into a refused container")
    }

    /// The same through the binary: exit 2, the reason on standard error,
    /// and the victim untouched (the command's own "is the container in use?" check opens the
    /// lock too).
    @Test func lockFileLinkedToAVictimIsRefusedByTheCommand() throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        let victim = try f.dir.file("victim", "IMPORTANT\n")
        let d = f.dir.url.appendingPathComponent("d")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: d.appendingPathComponent(ContainerLock.fileName).path, withDestinationPath: victim.path)
        let list = try f.list([f.server.url("/a.jpg")])

        let run = try ProcessRunner.run(
            "pushattach", ["prepare", list, "--container", d.path, "--allow-private-networks"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("\(d.path)/.pushattach.lock is a symbolic link"), "\(run.stderr)")
        #expect(run.stderr.contains("remove it"), "\(run.stderr)")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "IMPORTANT\n")
    }

    /// A link to a file that does not exist yet: `O_CREAT` through it would create the file
    /// outside.
    @Test func lockFileLinkedToNowhereCreatesNothingOutside() async throws {
        let f = try PrepareFixture()
        let d = f.dir.url.appendingPathComponent("d")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        let target = f.dir.url.appendingPathComponent("created-outside")
        try FileManager.default.createSymbolicLink(
            atPath: d.appendingPathComponent(ContainerLock.fileName).path, withDestinationPath: target.path)

        #expect(throws: ContainerError.unsafeEntry(path: d.path + "/.pushattach.lock", found: .symbolicLink)) {
            _ = try Container.open(at: d)
        }
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    /// `ln -s "$PWD/v2" e/manifest.jsonl`, then `--resume`: a run that followed it would append
    /// a JSON line to v2. Without resuming, the journal is refused at open just the same.
    @Test(arguments: [true, false])
    func journalLinkedToAVictimIsRefused(resume: Bool) async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        let victim = try f.dir.file("v2", "precious\n")
        let e = f.dir.url.appendingPathComponent("e")
        try FileManager.default.createDirectory(at: e, withIntermediateDirectories: true)
        let journal = e.appendingPathComponent(ManifestJournal.fileName)
        try FileManager.default.createSymbolicLink(atPath: journal.path, withDestinationPath: victim.path)

        var options = try f.options([f.server.url("/a.jpg")], container: e)
        options.resume = resume
        let error = try await failure(of: options)
        #expect(error == .unsafeEntry(path: journal.path, found: .symbolicLink))
        expectClear(error, naming: journal.path)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: journal.path) == victim.path)
    }

    /// `ln -s "$PWD/outside" f/Images`, a run, then a `--resume` run: a resume that followed it
    /// would delete every file in `outside/` as "unreferenced". Both runs stop at open, before anything
    /// is downloaded, written or removed.
    @Test func imagesFolderLinkedOutsideIsRefusedAndNothingOutsideIsDeleted() async throws {
        let fixture = try PrepareFixture()
        fixture.serveJPEG("/a.jpg")
        let outside = fixture.dir.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let precious = try fixture.dir.file("outside/precious.txt", "x\n")
        let f = fixture.dir.url.appendingPathComponent("f")
        try FileManager.default.createDirectory(at: f, withIntermediateDirectories: true)
        let images = f.appendingPathComponent("Images")
        try FileManager.default.createSymbolicLink(atPath: images.path, withDestinationPath: outside.path)

        var options = try fixture.options([fixture.server.url("/a.jpg")], container: f)
        for resume in [false, true] {
            options.resume = resume
            let error = try await failure(of: options)
            #expect(error == .unsafeEntry(path: images.path, found: .symbolicLink))
            expectClear(error, naming: images.path)
        }
        #expect(fixture.dir.names(in: "outside") == ["precious.txt"])
        #expect(try String(contentsOf: precious, encoding: .utf8) == "x\n")
        #expect(fixture.server.hits("/a.jpg") == 0, "refused before any download")
    }

    // MARK: - Neighbours of the reproductions

    /// A finished run, then `Images/` swapped for a link to a folder outside: the resume, which
    /// removes unreferenced files, is refused at open and deletes nothing there.
    @Test func imagesFolderSwappedForALinkAfterARunDeletesNothingOnResume() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        var options = try f.options([f.server.url("/a.jpg")])
        _ = try await f.run(options)
        let outside = f.dir.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        _ = try f.dir.file("outside/precious.txt", "x\n")
        let images = f.container.appendingPathComponent("Images")
        try FileManager.default.removeItem(at: images)
        try FileManager.default.createSymbolicLink(atPath: images.path, withDestinationPath: outside.path)

        options.resume = true
        let error = try await failure(of: options)
        #expect(error == .unsafeEntry(path: images.path, found: .symbolicLink))
        #expect(f.dir.names(in: "outside") == ["precious.txt"])
    }

    /// Every folder and the lock: a link at any of them stops `Container.open`, naming it.
    @Test(arguments: ["Images", "Audio", "Video", "Thumbnails", ".pushattach.lock"])
    func anyFolderOrTheLockLinkedOutsideIsRefused(name: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let outside = dir.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let root = dir.url.appendingPathComponent("c")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent(name).path, withDestinationPath: outside.path)
        #expect(throws: ContainerError.unsafeEntry(path: root.path + "/" + name, found: .symbolicLink)) {
            _ = try Container.open(at: root)
        }
        #expect(dir.names(in: "outside").isEmpty, "nothing created through the link")
    }

    /// A hard link is another name for the victim's own data: the journal and the lock, which
    /// are written in place, refuse a file with other names; the victim keeps its bytes.
    @Test func journalHardLinkedToAVictimIsRefused() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        let victim = try f.dir.file("v2", "precious\n")
        let e = f.dir.url.appendingPathComponent("e")
        try FileManager.default.createDirectory(at: e, withIntermediateDirectories: true)
        let journal = e.appendingPathComponent(ManifestJournal.fileName)
        try FileManager.default.linkItem(at: victim, to: journal)

        var options = try f.options([f.server.url("/a.jpg")], container: e)
        options.resume = true
        let error = try await failure(of: options)
        #expect(error == .unsafeEntry(path: journal.path, found: .hardLinked(links: 2)))
        #expect(error.description.contains("2 hard links") && error.description.contains("remove it"))
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
    }

    /// A pipe where the lock belongs neither blocks the open nor is written to.
    @Test func pipeAtTheLockIsRefusedWithoutBlocking() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let lock = dir.url.appendingPathComponent(ContainerLock.fileName)
        #expect(mkfifo(lock.path, 0o644) == 0)
        #expect(throws: ContainerError.unsafeEntry(path: lock.path, found: .specialFile)) {
            _ = try Container.open(at: dir.url)
        }
        let error = ContainerError.unsafeEntry(path: lock.path, found: .specialFile)
        #expect(error.isFatal && error.description.contains("not a regular file"))
    }

    /// Links planted at the names a run writes (a stable attachment name, `manifest.json`) are
    /// replaced by the atomic rename, never written through: the victims keep their bytes and
    /// the container ends with regular files.
    @Test func linksAtOutputNamesAreReplacedNotWrittenThrough() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/cat.jpg")
        let url = f.server.url("/cat.jpg")
        let victim = try f.dir.file("victim", "IMPORTANT\n")
        let images = f.container.appendingPathComponent("Images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let stable = AttachmentName(url: url, fileExtension: "jpg", naming: .stable)
        let planted = [
            images.appendingPathComponent(stable.fileName), f.container.appendingPathComponent("manifest.json"),
        ]
        for link in planted {
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: victim.path)
        }

        var options = try f.options([url])
        options.stableNames = true
        let (summary, byInput, _) = try await f.run(options)
        #expect(summary.prepared == 1)
        #expect(byInput[url]?.file == "Images/" + stable.fileName)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "IMPORTANT\n")
        for path in planted.map(\.path) {
            let type = try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
            #expect(type == .typeRegular, "\(path)")
        }
    }

    /// On resume, a prepared entry whose file was swapped for a link (to a file outside of the
    /// recorded size) is not trusted: the item is prepared again, and the link itself, not its
    /// target, is what the clean-up removes.
    @Test func resumeDoesNotTrustALinkedAttachmentAndRemovesOnlyTheLink() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        let url = f.server.url("/a.jpg")
        var options = try f.options([url])
        let (_, first, _) = try await f.run(options)
        let file = try #require(first[url]?.file)
        let attachment = f.container.appendingPathComponent(file)
        let outside = f.dir.url.appendingPathComponent("outside.jpg")
        try FileManager.default.moveItem(at: attachment, to: outside)
        try FileManager.default.createSymbolicLink(atPath: attachment.path, withDestinationPath: outside.path)

        options.resume = true
        let notes = Notes()
        let summary = try await BatchRunner(options: options).run { event in
            if case .note(let text) = event { notes.append(text) }
        }
        #expect(summary.prepared == 1 && summary.skipped == 0)
        #expect(notes.all.contains { $0.contains("\(file) is a symbolic link") }, "\(notes.all)")
        #expect(FileManager.default.fileExists(atPath: outside.path), "the link's target stays")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: attachment.path)) == nil)
        #expect(try f.inconsistencies(f.container).isEmpty)
    }

    /// The folder the user names may itself be a link: that is their choice. It is resolved
    /// once; the run works inside the real folder and reports that path.
    @Test func theContainerItselfMayBeALink() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        let real = f.dir.url.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        let link = f.dir.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: real.path)

        let (summary, byInput, _) = try await f.run(f.options([f.server.url("/a.jpg")], container: link))
        #expect(summary.prepared == 1)
        #expect(summary.container.path == real.path)
        let file = try #require(byInput[f.server.url("/a.jpg")]?.file)
        #expect(FileManager.default.fileExists(atPath: real.appendingPathComponent(file).path))
    }

    /// Below the container, paths are walked one component at a time without following links.
    @Test func aLinkOnTheWayIsRefusedAndRemovalNeverFollowsOne() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let container = try Container.open(at: dir.url.appendingPathComponent("c"))
        let outside = dir.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        _ = try dir.file("outside/kept.txt", "x")
        let sub = container.url.appendingPathComponent("Images/sub")
        try FileManager.default.createSymbolicLink(atPath: sub.path, withDestinationPath: outside.path)
        try FileManager.default.createDirectory(
            at: container.url.appendingPathComponent("Audio/folder"), withIntermediateDirectories: true)

        #expect(throws: ContainerError.unsafeEntry(path: sub.path, found: .symbolicLink)) {
            _ = try container.root.walk(to: "Images/sub/kept.txt")
        }
        let removed = container.removeUnreferencedFiles(keeping: [])
        #expect(removed == ["Images/sub"], "the link itself; the folder in Audio/ is left alone")
        #expect(dir.names(in: "outside") == ["kept.txt"])
        #expect(dir.names(in: "c/Audio") == ["folder"])
        #expect(!container.removeFile("../outside/kept.txt") && !container.removeFile("Images/../../x"))
    }

    // MARK: - Helpers

    /// Runs the preparer over `options` and returns the container error it stopped with.
    private func failure(of options: PrepareOptions) async throws -> ContainerError {
        let summary: PrepareSummary
        do { summary = try await BatchRunner(options: options).run() } catch { return error.error }
        Issue.record("the run was expected to stop; it finished: \(summary)")
        throw CancellationError()
    }

    /// The message names the path, says what to do, and names no command-line flag.
    private func expectClear(_ error: ContainerError, naming path: String) {
        let text = error.description
        #expect(text.contains(path), "\(text)")
        #expect(text.contains("is a symbolic link"), "\(text)")
        #expect(text.contains("does not follow links inside the container: remove it"), "\(text)")
        #expect(!text.contains("--"), "library errors name no flags: \(text)")
        #expect(error.isFatal)
    }
}

/// The run's notes, collected from its event callback (any thread).
private final class Notes: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ note: String) { lock.withLock { items.append(note) } }
    var all: [String] { lock.withLock { items } }
}
