import BenchmarkKit
import Foundation

/// `pushattach bench`: the in-process throughput benchmark (same engine as `pushattach-bench`).
struct BenchCommand: Command {
    static let name = "bench"
    static let abstract = "Measure thumbnail, fit and decode throughput on a folder of images."
    static let help = BenchConfiguration.help(command: "pushattach bench")
    static let spec = OptionSpec(flags: BenchConfiguration.flags, values: BenchConfiguration.valueOptions)

    var configuration: BenchConfiguration

    init(_ arguments: ParsedArguments) throws {
        var values: [String: String] = [:]
        for name in BenchConfiguration.valueOptions { values[name] = arguments.value(name) }
        do {
            configuration = try BenchConfiguration(values: values, flags: arguments.flags)
        } catch {
            throw UsageError(command: "pushattach bench", message: error.message)
        }
    }

    func run() async throws -> Int32 { BenchMain.run(configuration) }
}
