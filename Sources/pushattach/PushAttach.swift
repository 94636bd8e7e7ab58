import Foundation

/// `pushattach`: the root command. Dispatches to a subcommand; usage errors exit 64 with one
/// line and a hint, never a stack trace.
@main
enum PushAttach {
    static let version = "0.1.0"

    static var commands: [any Command.Type] { [VerifyCommand.self, PrepareCommand.self, BenchCommand.self] }

    static var help: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map { "  \($0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.abstract)" }
        return """
            pushattach \(version): turn rich-push media URLs into attachment files iOS accepts.

            USAGE: pushattach <subcommand> [options]

            SUBCOMMANDS:
            \(list.joined(separator: "\n"))

            OPTIONS:
              -h, --help     Show this help, or a subcommand's with 'pushattach <subcommand> --help'.
              --version      Print the version.

            The rules iOS applies to attachments are summarised in 'pushattach verify --help'.
            """
    }

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let status = await run(arguments)
        if ProcessInfo.processInfo.environment["PUSHATTACH_REPORT_PEAK_RSS"] == "1" {
            // For memory tests and benchmarks: this process's own high-water mark.
            Console.error("peak_rss_bytes=\(PeakMemory.bytes)")
        }
        exit(status)
    }

    static func run(_ arguments: [String]) async -> Int32 {
        guard let first = arguments.first else {
            Console.error(help)
            return ExitStatus.usage
        }
        switch first {
        case "-h", "--help", "help":
            if arguments.count > 1, let command = command(named: arguments[1]) {
                Console.out(command.help)
            } else {
                Console.out(help)
            }
            return ExitStatus.success
        case "--version":
            Console.out("pushattach \(version)")
            return ExitStatus.success
        default:
            break
        }
        guard let type = command(named: first) else {
            let names = commands.map { $0.name }.joined(separator: ", ")
            Console.error("pushattach: unknown subcommand '\(first)' (expected one of: \(names))")
            Console.error("hint: run 'pushattach --help'")
            return ExitStatus.usage
        }
        return await dispatch(type, Array(arguments.dropFirst()))
    }

    private static func command(named name: String) -> (any Command.Type)? {
        for command in commands where command.name == name { return command }
        return nil
    }

    private static func dispatch(_ type: any Command.Type, _ arguments: [String]) async -> Int32 {
        do {
            let parsed = try type.spec.parse(arguments, command: "pushattach \(type.name)")
            if parsed.wantsHelp {
                Console.out(type.help)
                return ExitStatus.success
            }
            let command = try type.init(parsed)
            try command.validate()
            return try await command.run()
        } catch let error as UsageError {
            Console.error("\(error)")
            Console.error("hint: run 'pushattach \(type.name) --help'")
            return ExitStatus.usage
        } catch {
            Console.error("pushattach \(type.name): \(error)")
            return ExitStatus.fatal
        }
    }
}
