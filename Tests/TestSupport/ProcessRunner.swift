import Foundation

/// Runs a built product of this package (e.g. `pushattach`) as a child process and collects
/// its exit status and output, for end-to-end tests.
///
///     let result = try ProcessRunner.run("pushattach", ["verify", "--json", path])
///     #expect(result.status == 0)
public enum ProcessRunner {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
        /// Peak resident set size of the child, in bytes (from wait4's rusage).
        public let peakRSS: Int
    }

    /// The folder holding the built products: beside the running test bundle.
    public static var productsDirectory: URL {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent(),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Corpus.packageRoot.appendingPathComponent(".build/debug"),
        ].compactMap { $0 }
        for dir in candidates where FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("pushattach").path) {
            return dir
        }
        return candidates.last!
    }

    public static func product(_ name: String) -> URL { productsDirectory.appendingPathComponent(name) }

    /// Runs `product` with `arguments`; `stdin` is written to its standard input.
    public static func run(
        _ product: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil,
        currentDirectory: URL? = nil
    ) throws -> Result {
        try runExecutable(self.product(product), arguments, stdin: stdin, environment: environment, currentDirectory: currentDirectory)
    }

    public static func runExecutable(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil,
        currentDirectory: URL? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        // Drain both pipes concurrently so a chatty child cannot block on a full pipe.
        let errData = Watched<Data?>(nil)
        let errThread = Thread { errData.update { $0 = err.fileHandleForReading.readDataToEndOfFile() } }
        errThread.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errors = errData.waitBlocking(timeout: .seconds(3600)) { $0 != nil } ?? nil
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errors ?? Data(), as: UTF8.self), peakRSS: childrenPeakRSS())
    }

    /// Peak RSS of all waited-for children so far, in bytes (RUSAGE_CHILDREN; Linux reports kB).
    public static func childrenPeakRSS() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return Int(usage.ru_maxrss) * 1024
    }
}

extension ProcessRunner {
    /// Runs a `pushattach` command with `PUSHATTACH_REPORT_PEAK_RSS=1` and returns its result
    /// and the peak RSS the child reported for itself (VmHWM; ru_maxrss of a child is polluted
    /// by the parent's size at fork on Linux).
    public static func runMeasuringMemory(_ product: String, _ arguments: [String]) throws -> (result: Result, peakRSS: Int) {
        let result = try run(product, arguments, environment: ["PUSHATTACH_REPORT_PEAK_RSS": "1"])
        let line = result.stderr.split(separator: "\n").last { $0.hasPrefix("peak_rss_bytes=") }
        let bytes = line.flatMap { Int($0.dropFirst("peak_rss_bytes=".count)) } ?? -1
        return (result, bytes)
    }
}
