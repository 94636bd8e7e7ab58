import BenchmarkKit
import Foundation

// pushattach-bench: the in-process benchmark; `pushattach bench` runs the same engine.
let arguments = Array(CommandLine.arguments.dropFirst())
do {
    guard let configuration = try BenchConfiguration.parse(arguments) else {
        print(BenchConfiguration.help(command: "pushattach-bench"))
        exit(0)
    }
    exit(BenchMain.run(configuration))
} catch {
    BenchMain.usageError(error, command: "pushattach-bench")
    exit(64)
}
