import BenchmarkKit
import Foundation

// pushattach-bench: the in-process benchmark. `pushattach bench` runs this binary (found beside
// `pushattach`), with "pushattach bench" as argv[0] so help, banner and errors use that name.
let command = CommandLine.arguments.first == BenchMain.subcommandName ? BenchMain.subcommandName : "pushattach-bench"
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == [BenchMain.describeOptions] {
    print(BenchMain.description())
    exit(0)
}
do {
    guard let configuration = try BenchConfiguration.parse(arguments) else {
        print(BenchConfiguration.help(command: command))
        exit(0)
    }
    exit(BenchMain.run(configuration, command: command))
} catch {
    BenchMain.usageError(error, command: command)
    exit(64)
}
