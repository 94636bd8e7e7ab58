import Foundation

/// A subcommand: parse, validate, run. Mirrors swift-argument-parser's `ParsableCommand`.
protocol Command {
    static var name: String { get }
    /// One line for the root command's list.
    static var abstract: String { get }
    /// The whole `--help` text.
    static var help: String { get }
    static var spec: OptionSpec { get }
    init(_ arguments: ParsedArguments) throws
    /// Checks that the options make sense together, before any work starts.
    func validate() throws
    /// Does the work and returns the exit status.
    func run() async throws -> Int32
}

extension Command {
    func validate() throws {}
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

/// Standard error, unbuffered, for diagnostics and progress.
enum Console {
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// True when stderr is a terminal (progress bars only then).
    static var stderrIsTerminal: Bool { isatty(2) == 1 }
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }
}
