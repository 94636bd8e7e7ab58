/// One option of a command, as the parser, `--help`, the man page and the completion scripts
/// all see it: the single table each command declares. Defaults are read from the library's
/// own types (`ProcessingLimits()`, `FetchPolicy()`, …), so what `--help` says is what a run
/// without the option gets.
///
///     static let quality = OptionInfo.int(
///         "--quality", "Q", "JPEG quality.", default: ProcessingLimits().quality, in: 1...100)
///     try arguments.int(quality, command: "pushattach prepare")   // nil when absent
struct OptionInfo: Sendable {
    enum Kind: Sendable, Equatable {
        /// A switch: `--json`.
        case flag
        /// Takes a value: `--container DIR`, `--container=DIR`, `-o DIR`, `-oDIR`.
        case value
        /// Takes a value and may be given more than once.
        case repeatable
    }

    /// What a shell should offer for the option's value (or a command's positionals).
    enum Completion: Sendable, Equatable {
        case none
        case file
        case directory
        /// One of these words (or a comma-separated list of them, for `--workload`).
        case choices([String])
    }

    /// The long name, `--container`.
    var name: String
    /// The short form, `-o`, if any.
    var short: String?
    var kind: Kind
    /// How the value is named in help, `DIR`; nil for flags.
    var placeholder: String?
    /// One sentence or two; wrapped when shown.
    var help: String
    /// What a run without the option gets, shown as "(default …)".
    var defaultText: String?
    /// Accepted numbers, for numeric options.
    var range: ClosedRange<Double>?
    /// Whole numbers only.
    var wholeNumber = false
    var completion: Completion = .none

    static func flag(_ name: String, short: String? = nil, _ help: String) -> OptionInfo {
        OptionInfo(name: name, short: short, kind: .flag, help: help)
    }

    static func value(
        _ name: String, short: String? = nil, _ placeholder: String, _ help: String, default defaultText: String? = nil,
        repeatable: Bool = false, completion: Completion = .none
    ) -> OptionInfo {
        OptionInfo(
            name: name, short: short, kind: repeatable ? .repeatable : .value, placeholder: placeholder, help: help,
            defaultText: defaultText, completion: completion)
    }

    static func int(
        _ name: String, short: String? = nil, _ placeholder: String, _ help: String, default defaultValue: Int?,
        in range: ClosedRange<Int>
    ) -> OptionInfo {
        OptionInfo(
            name: name, short: short, kind: .value, placeholder: placeholder, help: help,
            defaultText: defaultValue.map { "\($0)" }, range: Double(range.lowerBound)...Double(range.upperBound),
            wholeNumber: true)
    }

    static func number(
        _ name: String, _ placeholder: String, _ help: String, default defaultValue: Double?,
        in range: ClosedRange<Double>
    ) -> OptionInfo {
        OptionInfo(
            name: name, kind: .value, placeholder: placeholder, help: help,
            defaultText: defaultValue.map(Self.decimal), range: range)
    }

    /// `-h, --help`, which every command takes (the parser answers it before anything else).
    static let help = flag("--help", short: "-h", "Show this help.")

    /// `-o, --container DIR`, or `--thumbnail N`.
    var label: String {
        let names = short.map { "\($0), \(name)" } ?? name
        return placeholder.map { "\(names) \($0)" } ?? names
    }

    /// The help sentence with its default: "Fit images to N pixels on the long side (default 2048)."
    var helpWithDefault: String {
        guard let defaultText else { return help }
        let body = help.hasSuffix(".") ? String(help.dropLast()) : help
        return "\(body) (default \(defaultText))."
    }

    /// 25.0 as "25", 0.5 as "0.5".
    static func decimal(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// A command's positional argument, for help and the man page.
struct ArgumentInfo: Sendable {
    var name: String
    var help: String
    var completion: OptionInfo.Completion = .file
}

/// A block of prose in help and the man page.
enum TextBlock: Sendable {
    /// Reflowed to the width of the output.
    case paragraph(String)
    /// Terms and their meaning, one per line: the verdicts, the workloads.
    case definitions([Definition])

    struct Definition: Sendable {
        var term: String
        var text: String
    }
}

/// Everything a command says about itself: rendered as `--help` (`HelpText`), as a section of
/// the man page (`ManPage`), and as completion rules (`CompletionScript`).
struct CommandDoc: Sendable {
    /// How it is invoked, "pushattach prepare".
    var title: String
    /// The first line of OVERVIEW.
    var summary: String
    /// Paragraphs after the summary.
    var overview: [TextBlock] = []
    /// After "USAGE: ".
    var usage: String
    var arguments: [ArgumentInfo] = []
    /// The option table, `-h, --help` last.
    var options: [OptionInfo]
    /// Paragraphs after the options.
    var notes: [TextBlock] = []
    var exitStatus: String?
    var examples: [String] = []
}
