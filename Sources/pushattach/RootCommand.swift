import Foundation
import PushAttach

/// `pushattach`: the root command. Dispatches to a subcommand; usage errors exit 64 with one
/// line and a hint, never a stack trace.
@main
enum RootCommand {
    /// The library's version: the tool is released with it.
    static let version = PushAttachVersion.current

    static var commands: [any Command.Type] {
        [VerifyCommand.self, PrepareCommand.self, ServeCommand.self, LinkCommand.self, MergeCommand.self, BenchCommand.self, ReportCommand.self]
    }

    /// The root's own options, as `--help` and the man page show them.
    enum Options {
        static let help = OptionInfo.flag(
            "--help", short: "-h", "Show this help, or a subcommand's with 'pushattach <subcommand> --help'.")
        static let version = OptionInfo.flag(
            "--version", "Print the version, and those of the libraries linked in (libpng, libwebp, libheif, libcurl).")
        static let all = [help, version]

        /// Hidden: they print files the repository carries (`docs/pushattach.1`, `completions/`).
        static let generateManpage = "--generate-manpage"
        static let generateCompletionScript = "--generate-completion-script"
    }

    static let summary = "turn rich-push media URLs into attachment files iOS accepts."
    static let usage = "pushattach <subcommand> [options]"
    static let closing = "The rules iOS applies to attachments are summarised in 'pushattach verify --help'."
    /// The man page's DESCRIPTION.
    static let description =
        "pushattach turns the media URLs of rich push notifications into attachment files iOS accepts, sized so a Notification Service Extension can show them, and says of any file whether iOS would accept it, and if not, why."
    static let exitStatus =
        "0 all good, 1 some file not accepted or item not prepared, 2 fatal (container not writable, disk full, in use), 64 usage error, 130 interrupted (SIGINT), 143 terminated (SIGTERM). A closed stdout or stderr (| head) stops the printing, not the work, and does not change the status."

    static var help: String {
        let subcommands = HelpText.table(commands.map { ($0.name, $0.abstract) })
        let options = HelpText.table(Options.all.map { ($0.label, $0.helpWithDefault) })
        return """
            pushattach \(version): \(summary)

            USAGE: \(usage)

            SUBCOMMANDS:
            \(subcommands)

            OPTIONS:
            \(options)

            \(closing)
            """
    }

    static func main() async {
        MallocTuning.apply()
        // A closed stdout or stderr (`| head`, `2>&-`) stops the printing, not the run
        // (`ConsoleStream`).
        ConsoleStream.reserveStandardDescriptors()
        ConsoleStream.ignoreBrokenPipes()
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
        do {
            switch first {
            case "-h", "--help", "help":
                guard arguments.count > 1 else {
                    Console.out(help)
                    return ExitStatus.success
                }
                try expectNothing(after: 2, in: arguments)
                if arguments[1] == BenchCommand.name { return BenchCommand.handOver(["--help"]) }
                Console.out(try command(named: arguments[1]).help)
                return ExitStatus.success
            case Options.version.name:
                try expectNothing(after: 1, in: arguments)
                for line in VersionReport.lines(version: version) { Console.out(line) }
                return ExitStatus.success
            case Options.generateManpage:
                try expectNothing(after: 1, in: arguments)
                Console.out(ManPage.render(version: version, commands: commands))
                return ExitStatus.success
            case Options.generateCompletionScript:
                try expectNothing(after: 2, in: arguments)
                Console.out(try CompletionScript.render(shell: arguments.dropFirst().first, commands: commands))
                return ExitStatus.success
            default:
                break
            }
            if first.hasPrefix("-") {
                let hint = Suggestion.closest(to: first, among: Options.all.map(\.name)).map {
                    " (did you mean \($0)?)"
                }
                throw UsageError(command: "pushattach", message: "unknown option '\(first)'\(hint ?? "")")
            }
            // `bench`'s options are `pushattach-bench`'s own: handed over unparsed.
            if first == BenchCommand.name { return BenchCommand.handOver(Array(arguments.dropFirst())) }
            return await dispatch(try command(named: first), Array(arguments.dropFirst()))
        } catch let error as UsageError {
            Console.error("\(error)")
            Console.error("hint: run 'pushattach --help'")
            return ExitStatus.usage
        } catch {
            Console.error("pushattach: \(error)")
            return ExitStatus.fatal
        }
    }

    /// The subcommand called `name`, or a usage error suggesting the nearest one.
    private static func command(named name: String) throws(UsageError) -> any Command.Type {
        for command in commands where command.name == name { return command }
        let names = commands.map { $0.name }
        if let near = Suggestion.closest(to: name, among: names) {
            throw UsageError(command: "pushattach", message: "unknown subcommand '\(name)' (did you mean \(near)?)")
        }
        throw UsageError(
            command: "pushattach",
            message: "unknown subcommand '\(name)' (expected one of: \(names.joined(separator: ", ")))")
    }

    private static func expectNothing(after count: Int, in arguments: [String]) throws(UsageError) {
        guard arguments.count > count else { return }
        throw UsageError(
            command: "pushattach", message: "unexpected argument '\(arguments[count])' after '\(arguments[count - 1])'")
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
