import Foundation
import TestSupport

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Running the built `pushattach prepare` binary against the fixture, and reading what it left.
extension PrepareFixture {
    /// Writes `urls` to a fresh list file and returns its path.
    func list(_ urls: [String]) throws -> String {
        try dir.file("list-\(UUID().uuidString).txt", urls.joined(separator: "\n") + "\n").path
    }

    /// Serves the small JPEG at `count` distinct URLs.
    func images(count: Int, prefix: String = "/img") -> [String] {
        (0..<count).map { index in
            let path = "\(prefix)/\(index).jpg"
            serveJPEG(path)
            return server.url(path)
        }
    }

    /// Serves the small JPEG at `count` distinct URLs: the first `served` at once, every later
    /// one held at the returned gate until the test opens it. A run over them cannot finish on
    /// its own: it stops with the first `served` items done and the rest in flight.
    func heldImages(count: Int, served: Int, prefix: String = "/img") -> (urls: [String], gate: TestHTTPServer.Gate) {
        let gate = TestHTTPServer.Gate()
        let urls = (0..<count).map { index in
            let path = "\(prefix)/\(index).jpg"
            if index < served {
                serveJPEG(path)
            } else {
                server.hold(path, gate: gate, .bytes(PrepareFixture.jpeg, contentType: "image/jpeg"))
            }
            return server.url(path)
        }
        return (urls, gate)
    }

    /// Options for `pushattach prepare` over `heldImages`: downloads in flight and per host
    /// equal (`window`), so an item that is served never queues behind held ones for its host;
    /// the deadline far off, so a held download ends only when the test lets it. (The CLI has
    /// no option for its low-speed check, 1 KB/s over 10 s: the tests let held downloads go,
    /// or signal the run, right after the window fills, well inside those 10 s.)
    static func heldRunOptions(window: Int) -> [String] {
        ["--concurrency", "\(window)", "--per-host", "\(window)", "--timeout", "3600"]
    }

    /// Waits until the `pushattach` run over `heldImages` has filled its window of `window`
    /// downloads with held ones. An item's slot is refilled only after its entry is in the
    /// journal, so by then every served item has its line there, and no other item can finish.
    /// True when it got there; false after five minutes (the run failed or stalled).
    func waitForHeldWindow(_ gate: TestHTTPServer.Gate, window: Int) -> Bool {
        gate.waitBlocking { $0.waiting >= window } != nil
    }

    func journalLines(_ container: URL) -> Int {
        let data = (try? Data(contentsOf: container.appendingPathComponent("manifest.jsonl"))) ?? Data()
        return data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    /// Starts `pushattach` with `arguments`; its standard error goes to the returned file.
    func start(_ arguments: [String]) throws -> (process: Process, stderr: URL) {
        let log = dir.url.appendingPathComponent("stderr-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = ProcessRunner.product("pushattach")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        return (process, log)
    }

    /// Starts `pushattach prepare` over `heldImages` (with `heldRunOptions(window:)` among
    /// `arguments`), sends `signal` once its window is full of held downloads, waits for it to
    /// end, then opens the gate. Returns the process and the journal's line count when the
    /// signal was sent (nil when the window never filled: the signal is sent anyway).
    func runAndSignal(_ arguments: [String], gate: TestHTTPServer.Gate, window: Int, signal: Int32) throws -> (
        process: Process, linesAtSignal: Int?
    ) {
        let (process, _) = try start(arguments)
        let filled = waitForHeldWindow(gate, window: window)
        let lines = filled ? journalLines(container(in: arguments)) : nil
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        gate.open()
        return (process, lines)
    }

    private func container(in arguments: [String]) -> URL {
        let index = arguments.firstIndex(of: "--container").map { $0 + 1 }
        return index.map { URL(fileURLWithPath: arguments[$0]) } ?? container
    }

    /// Every file under the container that is not a folder, relative to it.
    func allFiles(_ container: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: container.path)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(
                atPath: container.appendingPathComponent(path).path, isDirectory: &isDirectory)
            if !isDirectory.boolValue { files.append(path) }
        }
        return files.sorted()
    }

    /// The attachment files and thumbnails under the container, relative to it.
    func attachmentFiles(_ container: URL) -> Set<String> {
        Set(
            allFiles(container).filter { path in
                Container.Folder.allCases.contains { path.hasPrefix($0.rawValue + "/") }
            })
    }

    /// The problems that make the container inconsistent: temporaries or partial files left,
    /// prepared entries whose file is missing or the wrong size, files no prepared entry names,
    /// and a `manifest.json` that disagrees with the journal. Empty when all is well.
    func inconsistencies(_ container: URL) throws -> [String] {
        var problems: [String] = []
        let files = allFiles(container)
        problems += files.filter { $0.contains(".tmp-") }.map { "temporary left: \($0)" }
        let journal = try Manifest.readJournal(dir: container)
        var referenced: Set<String> = []
        for entry in journal.entries where entry.status == .prepared {
            for file in [entry.file, entry.thumbnail].compactMap({ $0 }) { referenced.insert(file) }
            guard let file = entry.file else {
                problems.append("prepared entry without a file: \(entry.input)")
                continue
            }
            let size =
                (try? FileManager.default.attributesOfItem(atPath: container.appendingPathComponent(file).path))?[.size]
                as? Int
            if size != entry.bytes {
                problems.append("\(file): \(size.map(String.init) ?? "missing"), expected \(entry.bytes ?? -1) bytes")
            }
        }
        for file in attachmentFiles(container).subtracting(referenced).sorted() {
            problems.append("file no prepared entry names: \(file)")
        }
        let manifest = container.appendingPathComponent(Manifest.fileName)
        if let data = try? Data(contentsOf: manifest) {
            let document = try JSONDecoder().decode(Manifest.Document.self, from: data)
            if document.entries != journal.entries { problems.append("manifest.json differs from manifest.jsonl") }
        }
        return problems
    }

    /// The final manifest's entries.
    func manifestEntries(_ container: URL) throws -> [ManifestEntry] {
        let data = try Data(contentsOf: container.appendingPathComponent(Manifest.fileName))
        return try JSONDecoder().decode(Manifest.Document.self, from: data).entries
    }
}
