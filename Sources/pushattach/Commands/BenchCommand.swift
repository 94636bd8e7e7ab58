import Foundation

/// `pushattach bench`: hands its arguments to `pushattach-bench`, the in-process benchmark built
/// beside `pushattach`. The benchmark measures the engine and the codec floor directly, which no
/// face of the library offers, so it is an executable of its own and the command line links the
/// public library only (the way `git foo` runs `git-foo`).
///
///     pushattach bench --workload w1 --rounds 1   // runs: pushattach-bench --workload w1 --rounds 1
///
/// The tool is started with argv[0] = "pushattach bench", so its help, banner and usage errors
/// name the subcommand. It runs with glibc's malloc defaults, as `make bench` and `compare`
/// always ran it: `pushattach`'s `MallocTuning` does not carry over an exec.
struct BenchCommand: Command {
    static let name = "bench"
    static let abstract = "Measure thumbnail, fit and decode throughput on a folder of images."
    /// The executable that does the work.
    static let tool = "pushattach-bench"

    /// The tool's own table (`BenchDescription`), so the man page and the completion scripts
    /// list its options; without the tool, only how to get it.
    static var doc: CommandDoc {
        let description = BenchDescription.load()
        let handOver = TextBlock.paragraph(
            "Runs pushattach-bench, built beside pushattach ('swift build -c release' builds both; so does 'make bench'), with the same arguments.")
        return CommandDoc(
            title: "pushattach bench",
            summary: description?.summary
                ?? "Measure decode/resize/encode throughput in-process (pushattach-bench, not found: build it to see its options).",
            overview: [handOver]
                + (description.map {
                    [
                        .paragraph("Workloads:"),
                        .definitions($0.workloads.map { .init(term: $0.name, text: $0.summary) }),
                        .paragraph($0.method),
                    ]
                } ?? []),
            usage: "pushattach bench [options]",
            options: (description?.options ?? []) + [OptionInfo.help],
            exitStatus: "0 figures printed, 64 usage error (including no images to measure: pass --folder DIR), 2 pushattach-bench not found.",
            examples: [
                "pushattach bench --workload w1,w2 --rounds 3",
                "pushattach bench --folder ~/Photos --workload w1 --threads 1 --json",
            ])
    }

    init(_ arguments: ParsedArguments) throws {}

    /// Never reached: `RootCommand.run` hands `bench`'s arguments over before parsing them.
    func run() async throws -> Int32 { Self.handOver([]) }

    /// Replaces this process with `pushattach-bench arguments…`; returns only when that fails,
    /// with the exit status of a fatal error, after saying why.
    static func handOver(_ arguments: [String]) -> Int32 {
        guard let path = locate() else {
            // Beside a debug build, the tool must be a debug build too.
            let configuration = ownDirectory?.lastPathComponent == "debug" ? "" : " -c release"
            Console.error(
                "pushattach bench: \(tool) is not beside \(ownDirectory?.path ?? "pushattach") nor on PATH; build it with 'swift build\(configuration) --product \(tool)' (or 'make bench')"
            )
            return ExitStatus.fatal
        }
        let argv = (["pushattach bench"] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        Console.error("pushattach bench: cannot run \(path): \(reason)")
        return ExitStatus.fatal
    }

    /// `pushattach-bench` beside this executable (symlinks resolved), else the first on PATH.
    static func locate() -> String? {
        let files = FileManager.default
        if let beside = ownDirectory?.appendingPathComponent(tool).path, files.isExecutableFile(atPath: beside) {
            return beside
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(tool).path
            if files.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The folder of the running executable, from /proc/self/exe.
    static var ownDirectory: URL? {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return URL(fileURLWithPath: exe).deletingLastPathComponent()
    }
}

/// What `pushattach-bench --describe-options` prints: its summary, method, workloads and
/// options, read to document `bench` without linking the benchmark.
struct BenchDescription: Decodable {
    struct Workload: Decodable {
        var name: String
        var summary: String
    }

    struct Option: Decodable {
        var name: String
        var placeholder: String?
        var help: String
        var `default`: String?
        var choices: [String]
        var directory: Bool
    }

    var summary: String
    var method: String
    var workloads: [Workload]
    private var rawOptions: [Option]

    private enum CodingKeys: String, CodingKey {
        case summary, method, workloads
        case rawOptions = "options"
    }

    /// The options as the CLI's tables show them.
    var options: [OptionInfo] {
        rawOptions.map { option in
            var info =
                option.placeholder.map { OptionInfo.value(option.name, $0, option.help, default: option.default) }
                ?? OptionInfo.flag(option.name, option.help)
            if option.directory { info.completion = .directory }
            if !option.choices.isEmpty { info.completion = .choices(option.choices) }
            return info
        }
    }

    /// Runs the tool once per process; nil when it is missing or says something else.
    static func load() -> BenchDescription? { cached }

    private static let cached: BenchDescription? = {
        guard let path = BenchCommand.locate() else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--describe-options"]
        let out = Pipe()
        process.standardOutput = out
        guard (try? process.run()) != nil else { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return try? JSONDecoder().decode(BenchDescription.self, from: data)
    }()
}
