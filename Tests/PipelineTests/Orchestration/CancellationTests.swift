import Fetch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// Cancellation holds at every stage of an item: a cancelled call reports `.cancelled` and
/// leaves the folder as it was (no attachment, no thumbnail, no spool body), and a cancelled
/// batch reports each item it started, as finished or as cancelled, and writes nothing after.
@Suite("cancellation: at every stage, nothing left", .ownThread, .tags(.slow), .notInFastTier)
struct CancellationTests {
    /// The task to cancel from a stage observer (set once the task exists).
    final class TaskBox: Sendable {
        let task = Mutex<Task<ItemOutcome, Never>?>(nil)
        func cancel() { task.withLock { $0?.cancel() } }
    }

    /// Prepares one JPEG (with a thumbnail) through the library's per-item path, cancelling the
    /// call when the item reaches `stage`; returns the outcome and what the folder holds.
    func cancelled(at stage: ItemStage) async throws -> (ItemOutcome, [String]) {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        var options = try f.options([])
        options.limits.thumbnailSize = 64
        let box = TaskBox()
        options.stageObserver = { _, reached in if reached == stage { box.cancel() } }
        let container = try Container.open(at: f.container, access: .sharedByProcesses)
        let pipeline = ItemPipeline(options: options.item, container: container, memory: MemoryBudget(capacity: 256_000_000))
        let item = InputItem(url: f.server.url("/a.jpg"), source: "test", line: 0)
        let task = Task { await pipeline.prepareOne(item) }
        box.task.withLock { $0 = task }
        let outcome = await task.value
        pipeline.shutdown()
        let left = Self.files(in: f.container)
        container.removeSpoolFolder()
        container.lock.release()
        return (outcome, left)
    }

    /// Every file under `folder` but the lock and a spool folder's owner file, relative.
    static func files(in folder: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var files: [String] = []
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isDirectory)
            if isDirectory.boolValue || name.hasSuffix(ContainerLock.fileName) || name.hasSuffix(Container.ownerFileName) {
                continue
            }
            files.append(name)
        }
        return files.sorted()
    }

    @Test(arguments: [ItemStage.downloaded, .processing, .processed, .written])
    func aCallCancelledAtAStageLeavesNothing(_ stage: ItemStage) async throws {
        let (outcome, left) = try await cancelled(at: stage)
        guard case .cancelled = outcome else {
            Issue.record("cancelled at \(stage), the call gave \(outcome)")
            return
        }
        #expect(left.isEmpty, "cancelled at \(stage), the folder holds \(left)")
    }

    @Test func aCallNotCancelledWritesItsFiles() async throws {
        // The control: the same call, never cancelled, writes the attachment and its thumbnail.
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        var options = try f.options([])
        options.limits.thumbnailSize = 64
        let container = try Container.open(at: f.container, access: .sharedByProcesses)
        let pipeline = ItemPipeline(options: options.item, container: container, memory: MemoryBudget(capacity: 256_000_000))
        let done = await pipeline.prepareOne(InputItem(url: f.server.url("/a.jpg"), source: "test", line: 0))
        pipeline.shutdown()
        guard case .finished(let entry, _) = done else {
            Issue.record("expected an entry, got \(done)")
            return
        }
        #expect(entry.status == .prepared)
        #expect(Self.files(in: f.container).count == 2, "\(Self.files(in: f.container))")
        container.removeSpoolFolder()
        container.lock.release()
    }

    @Test func aCallCancelledWhileItsBodyStreamsToTheSpoolLeavesNoBody() async throws {
        let f = try PrepareFixture()
        let gate = TestHTTPServer.Gate()
        // 3 MB, over the 1 MB spool threshold: the first 2 MB stream to the spool, then it waits.
        let body = Data(repeating: 0xAB, count: 3_000_000)
        f.server.route("/big.jpg") { _ in
            TestHTTPServer.Response(status: 200, headers: [("Content-Type", "image/jpeg")], body: .held(body, first: 2_000_000, gate: gate))
        }
        let options = try f.options([])
        let container = try Container.open(at: f.container, access: .sharedByProcesses)
        let pipeline = ItemPipeline(options: options.item, container: container, memory: MemoryBudget(capacity: 256_000_000))
        let item = InputItem(url: f.server.url("/big.jpg"), source: "test", line: 0)
        let task = Task { await pipeline.prepareOne(item) }
        // Wait until the spool holds the streamed part, then cancel.
        let spool = f.container.appendingPathComponent(container.spoolFolderName)
        let spooling = await FolderEvents.wait(in: spool) {
            FolderEvents.names(in: spool).contains { $0 != Container.ownerFileName }
        }
        #expect(spooling, "the body never reached the spool")
        task.cancel()
        let outcome = await task.value
        gate.open()
        pipeline.shutdown()
        guard case .cancelled = outcome else {
            Issue.record("expected .cancelled, got \(outcome)")
            return
        }
        #expect(Self.files(in: f.container).isEmpty, "\(Self.files(in: f.container))")
        container.removeSpoolFolder()
        container.lock.release()
    }

    @Test func aBatchCancelledHalfwayReportsEveryItemItStarted() async throws {
        let f = try PrepareFixture()
        for i in 0..<20 { f.serveJPEG("/\(i).jpg") }
        var options = try f.options((0..<20).map { f.server.url("/\($0).jpg") })
        options.maxInFlight = 4
        let processed = Atomic<Int>(0)
        let run = Mutex<Task<Result<PrepareSummary, PrepareFailure>, Never>?>(nil)
        options.stageObserver = { _, stage in
            if stage == .processed, processed.add(1, ordering: .relaxed).newValue == 10 {
                run.withLock { $0?.cancel() }
            }
        }
        let started = Mutex<Set<Int>>([])
        let ended = Mutex<[Int: String]>([:])
        let runner = BatchRunner(options: options)
        let task = Task { () -> Result<PrepareSummary, PrepareFailure> in
            do throws(PrepareFailure) {
                return .success(
                    try await runner.run { event in
                        switch event {
                        case .started(_, let index): started.withLock { _ = $0.insert(index) }
                        case .finished(let entry, _): ended.withLock { $0[entry.index] = "finished" }
                        case .cancelled(_, let index): ended.withLock { $0[index] = "cancelled" }
                        case .skipped, .note: break
                        }
                    })
            } catch {
                return .failure(error)
            }
        }
        run.withLock { $0 = task }
        let summary = try await task.value.get()
        #expect(summary.interrupted)
        let startedItems = started.withLock { $0 }
        let endedItems = ended.withLock { $0 }
        #expect(startedItems.count < 20, "the batch stopped reading")
        #expect(Set(endedItems.keys) == startedItems, "every started item is reported once, finished or cancelled")
        #expect(endedItems.values.contains("cancelled") || startedItems.count == summary.total)
        // The run returns once its items are done: the folder holds the prepared items' files only.
        let images = Self.files(in: f.container).filter { $0.hasPrefix("Images/") }
        #expect(images.count == summary.prepared, "\(images.count) files for \(summary.prepared) prepared entries")
    }
}
