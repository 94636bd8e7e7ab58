#if FUZZING
    import Foundation
    import PushAttach
    import PushAttachBatch

    /// The URL-list, JSON-lines and payload parsers, through `InputReader` on standard input (`-`)
    /// backed by a scratch file, exactly as `prepare` reads a pipe.
    let inputHarness = Harness(name: "input") { bytes in
        let path = InputScratch.path
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { fatalError("cannot write \(path)") }
        guard let handle = FileHandle(forReadingAtPath: path) else { fatalError("cannot reopen \(path)") }
        defer { try? handle.close() }
        var options = InputReader.Options()
        options.maxLineBytes = 4096  // small limits so the over-limit paths get hit too
        options.maxDocumentBytes = 64 * 1024
        var events = 0
        for _ in InputReader(inputs: ["-"], standardInput: handle, options: options) {
            events += 1
            precondition(events <= bytes.count + 2, "more events than bytes: the reader loops")
        }
    }

    enum InputScratch {
        static let path: String = {
            let directory = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
            return "\(directory)/pushattach-fuzz-input-\(getpid())"
        }()
    }
#endif
