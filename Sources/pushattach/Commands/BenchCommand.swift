import BenchmarkKit
import Foundation

/// `pushattach bench`: the in-process throughput benchmark (same engine as `pushattach-bench`).
/// Its options are BenchmarkKit's table (`BenchConfiguration.options`), shown the CLI's way.
struct BenchCommand: Command {
    static let name = "bench"
    static let abstract = "Measure thumbnail, fit and decode throughput on a folder of images."

    static let options: [OptionInfo] =
        BenchConfiguration.options.map { option in
            var info =
                option.placeholder.map {
                    OptionInfo.value(option.name, $0, option.help, default: option.defaultText)
                } ?? OptionInfo.flag(option.name, option.help)
            if option.isDirectory { info.completion = .directory }
            if !option.choices.isEmpty { info.completion = .choices(option.choices) }
            return info
        } + [OptionInfo.help]

    static var doc: CommandDoc {
        CommandDoc(
            title: "pushattach bench",
            summary: BenchConfiguration.summary,
            overview: [
                .paragraph("Workloads:"),
                .definitions(Workload.allCases.map { .init(term: $0.rawValue, text: $0.summary) }),
                .paragraph(BenchConfiguration.method),
            ],
            usage: "pushattach bench [options]",
            options: options,
            exitStatus: "0 figures printed, 64 usage error (including no images to measure: pass --folder DIR).",
            examples: [
                "pushattach bench --workload w1,w2 --rounds 3",
                "pushattach bench --folder ~/Photos --workload w1 --threads 1 --json",
            ])
    }

    var configuration: BenchConfiguration

    init(_ arguments: ParsedArguments) throws {
        var values: [String: String] = [:]
        for name in BenchConfiguration.valueOptions { values[name] = arguments.values[name]?.last }
        do {
            configuration = try BenchConfiguration(values: values, flags: arguments.flags)
        } catch {
            throw UsageError(command: "pushattach bench", message: error.message)
        }
    }

    func validate() throws {
        do {
            _ = try configuration.folderToRead()
        } catch {
            throw UsageError(command: "pushattach bench", message: error.message)
        }
    }

    func run() async throws -> Int32 { BenchMain.run(configuration, command: "pushattach bench") }
}
