import Foundation
import TestSupport

@testable import Pipeline

#if canImport(Glibc)
    import Glibc
#endif

/// Running the built `pushattach prepare` binary against the fixture, and reading what it left.
extension PrepareFixture {
    /// Writes `urls` to a fresh list file and returns its path.
    func list(_ urls: [String]) throws -> String {
        try dir.file("list-\(UUID().uuidString).txt", urls.joined(separator: "\n") + "\n").path
    }

    /// Serves the small JPEG at `count` distinct URLs, each after `delay` microseconds.
    func slowImages(count: Int, delay: useconds_t, prefix: String = "/img") -> [String] {
        (0..<count).map { index in
            let path = "\(prefix)/\(index).jpg"
            server.route(path) { _ in
                usleep(delay)
                return .bytes(PrepareFixture.jpeg, contentType: "image/jpeg")
            }
            return server.url(path)
        }
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

    /// Waits (up to a minute) until the journal has `lines` lines or the process ended.
    func waitForJournal(_ process: Process, container: URL, lines: Int) {
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, journalLines(container) < lines, Date() < deadline { usleep(5_000) }
    }

    /// Starts `pushattach prepare` and sends `signal` once the journal has `lines` lines.
    func runAndSignal(_ arguments: [String], container: URL, lines: Int, signal: Int32) throws -> Process {
        let (process, _) = try start(arguments)
        waitForJournal(process, container: container, lines: lines)
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process
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
