import Foundation
import PushAttach

/// A subcommand: parse, validate, run. Mirrors swift-argument-parser's `ParsableCommand`.
protocol Command {
    static var name: String { get }
    /// One line for the root command's list.
    static var abstract: String { get }
    /// What the command says about itself, and its option table: the one source of `--help`,
    /// the parser's options, the man page and the completion scripts.
    static var doc: CommandDoc { get }
    /// The parser's view of `doc.options` (a command may add usage errors for other commands'
    /// options).
    static var spec: OptionSpec { get }
    init(_ arguments: ParsedArguments) throws
    /// Checks that the options make sense together, before any work starts.
    func validate() throws
    /// Does the work and returns the exit status.
    func run() async throws -> Int32
}

extension Command {
    func validate() throws {}

    /// The whole `--help` text.
    static var help: String { HelpText.render(doc) }
    static var spec: OptionSpec { OptionSpec(options: doc.options, positionals: doc.arguments.first?.name) }
}

/// Exit statuses shared by every subcommand.
enum ExitStatus {
    static let success: Int32 = 0
    static let someFailed: Int32 = 1
    static let fatal: Int32 = 2
    static let usage: Int32 = 64
    static let interrupted: Int32 = 130
    /// 128 + the signal's number (130 for SIGINT, 143 for SIGTERM); 130 when none is known.
    static func interrupted(by signal: Int32?) -> Int32 { signal.map { 128 + $0 } ?? interrupted }
}

/// Standard output and error, unbuffered, for results, diagnostics and progress. Everything goes
/// out through `ConsoleStream`, so a reader that goes away (`| head`) or a closed descriptor
/// stops the printing, never the command.
///
/// Every line of text for people goes through `shown(_:)`: text from outside (URLs, server
/// messages, file names) should be escaped where it enters a message (`DisplayText`), and this
/// is the last line of defence, so no control sequence reaches the terminal however a message
/// was built. JSON goes out through `json(_:)`.
enum Console {
    static func error(_ line: String) {
        ConsoleStream.standardError.write(Data((shown(line) + "\n").utf8))
    }

    static func out(_ line: String) {
        ConsoleStream.standardOutput.write(Data((shown(line) + "\n").utf8))
    }

    /// One encoded JSON value as a line on stdout, with U+2028, U+2029 and the other characters
    /// `DisplayText` escapes written as `\uXXXX` (`DisplayText.escapedJSON`).
    static func json(_ encoded: Data) {
        ConsoleStream.standardOutput.write(DisplayText.escapedJSON(encoded) + Data([0x0A]))
    }

    /// `text` with each of its lines escaped (`DisplayText.escaped`): the line breaks of a
    /// multi-line message stay, anything else that would act on a terminal is made visible.
    /// Escaping what is escaped already changes nothing.
    static func shown(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { DisplayText.escaped($0) }
            .joined(separator: "\n")
    }

    /// A status line on stderr, redrawn in place (for terminals only); nil clears it.
    static func status(_ line: String?) {
        // The escape sequence is ours (return and clear the line); the text goes through `shown`.
        ConsoleStream.standardError.write(Data(("\r\u{1B}[K" + (line.map(shown) ?? "")).utf8))
    }

    /// True when stderr is a terminal (progress bars only then).
    static var stderrIsTerminal: Bool { isatty(2) == 1 }
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }
}
