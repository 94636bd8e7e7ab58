import Foundation

/// One measured line: a workload (and format for W3) at one thread count.
public struct BenchResult: Sendable, Codable {
    public var workload: String
    public var format: String
    public var threads: Int
    public var images: Int
    public var imagesPerSecond: Double
    public var megapixelsPerSecond: Double
    public var p50Milliseconds: Double
    public var p95Milliseconds: Double
    /// The process's high-water mark when this line finished.
    public var peakRSSMegabytes: Double
    /// 1-minute load average when this line finished.
    public var load: Double
    /// Images the path refused (left out of the figures), with the reason.
    public var failures: [String]

    enum CodingKeys: String, CodingKey {
        case workload, format, threads, images, failures, load
        case imagesPerSecond = "images_per_s"
        case megapixelsPerSecond = "mp_per_s"
        case p50Milliseconds = "p50_ms"
        case p95Milliseconds = "p95_ms"
        case peakRSSMegabytes = "peak_rss_mb"
    }
}

/// Everything a run measured, printable as a table or JSON.
public struct BenchReport: Sendable, Codable {
    public var folder: String
    public var images: Int
    public var rounds: Int
    public var machine: String
    /// Encoded bytes of the folder, held in memory for the whole run.
    public var inputMegabytes: Double
    /// Peak RSS after reading the inputs, before any workload: subtract it from a line's peak
    /// to get that workload's working memory.
    public var baselineRSSMegabytes: Double
    public var results: [BenchResult]

    enum CodingKeys: String, CodingKey {
        case folder, images, rounds, machine, results
        case inputMegabytes = "input_mb"
        case baselineRSSMegabytes = "baseline_rss_mb"
    }

    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The report as a table, its banner naming `command` ("pushattach-bench" or "pushattach bench").
    public func table(command: String = "pushattach-bench") -> String {
        var lines = [
            "\(command): \(images) images from \(folder), median of \(rounds) rounds, \(machine)",
            "inputs in memory \(fmt(inputMegabytes)) MB; peak RSS before any workload \(fmt(baselineRSSMegabytes)) MB",
            pad([
                "workload", "format", "threads", "images", "images/s", "MP/s", "p50 ms", "p95 ms", "peak RSS MB",
                "load",
            ]),
        ]
        for r in results {
            lines.append(
                pad([
                    r.workload, r.format, "\(r.threads)", "\(r.images)", fmt(r.imagesPerSecond),
                    fmt(r.megapixelsPerSecond), fmt(r.p50Milliseconds), fmt(r.p95Milliseconds),
                    fmt(r.peakRSSMegabytes), fmt(r.load),
                ]))
        }
        for r in results
        where !r.failures.isEmpty
            && r.threads == results.first(where: { $0.workload == r.workload && $0.format == r.format })?.threads
        {
            lines.append("\(r.workload) \(r.format): \(r.failures.count) image(s) skipped, e.g. \(r.failures[0])")
        }
        return lines.joined(separator: "\n")
    }

    private func fmt(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }

    private func pad(_ cells: [String]) -> String {
        let widths = [9, 7, 8, 7, 9, 8, 8, 8, 12, 5]
        return zip(cells, widths).map { $0.padding(toLength: max($1, $0.count), withPad: " ", startingAt: 0) }
            .joined(separator: " ")
    }
}

/// The shared entry point of `pushattach-bench` and `pushattach bench`.
public enum BenchMain {
    /// The name `pushattach bench` passes as argv[0] when it runs this tool, and the name the tool
    /// then gives itself in help, banner and messages.
    public static let subcommandName = "pushattach bench"

    /// Hidden option: print `description()` and exit. `pushattach` runs it to put this tool's
    /// options in its man page and completion scripts without linking the benchmark.
    public static let describeOptions = "--describe-options"

    /// The tool's summary, method, workloads and option table, as one JSON object:
    /// `{"summary", "method", "workloads": [{"name", "summary"}], "options": [{"name",
    /// "placeholder"?, "help", "default"?, "choices", "directory"}]}`.
    public static func description() -> String {
        var options: [[String: Any]] = []
        for option in BenchConfiguration.options {
            var entry: [String: Any] = [
                "name": option.name, "help": option.help, "choices": option.choices, "directory": option.isDirectory,
            ]
            if let placeholder = option.placeholder { entry["placeholder"] = placeholder }
            if let defaultText = option.defaultText { entry["default"] = defaultText }
            options.append(entry)
        }
        let object: [String: Any] = [
            "summary": BenchConfiguration.summary, "method": BenchConfiguration.method,
            "workloads": Workload.allCases.map { ["name": $0.rawValue, "summary": $0.summary] }, "options": options,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Runs `configuration` and prints the report; `command` names the tool in the banner and in
    /// messages. Returns the exit status: 0, or 64 when there are no images to measure.
    public static func run(_ configuration: BenchConfiguration, command: String = "pushattach-bench") -> Int32 {
        var configuration = configuration
        do {
            configuration.folder = try configuration.folderToRead()
        } catch {
            usageError(error, command: command)
            return 64
        }
        let report = BenchRunner(configuration).run { line in
            if isatty(2) == 1 { FileHandle.standardError.write(Data("… \(line)\n".utf8)) }
        }
        guard !report.results.isEmpty else {
            usageError(
                BenchUsageError(
                    "no JPEG, PNG, WebP, HEIC or AVIF images under \(report.folder)\(configuration.workloads == [.w4] ? " (W4 reads PNGs only)" : configuration.workloads == [.w5] ? " (W5 reads HEIC and AVIF only: Benchmarks/make-heif-set writes some)" : ""); pass --folder DIR with some"
                ),
                command: command)
            return 64
        }
        print(configuration.json ? report.json() : report.table(command: command))
        return 0
    }

    /// One line naming the mistake, then a hint: what usage errors look like in both tools.
    public static func usageError(_ error: BenchUsageError, command: String) {
        FileHandle.standardError.write(Data("\(command): \(error)\nhint: run '\(command) --help'\n".utf8))
    }
}
