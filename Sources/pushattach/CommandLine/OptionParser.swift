/// A small hand-written command-line parser in the shape of swift-argument-parser (which we
/// cannot depend on): each command declares its options as a table (`OptionInfo`), `parse`
/// fills a `ParsedArguments`, the command's `validate()` checks combinations, then `run()` works.
///
///     let spec = OptionSpec(options: [json, container], positionals: "PATH")
///     let parsed = try spec.parse(["--json", "a.jpg"], command: "verify")
///     parsed.flag(json)            // true
///     parsed.positionals           // ["a.jpg"]
///
/// Long options take `--name value` or `--name=value`; short ones `-o value` or `-ovalue`, and
/// short switches may be grouped (`-qh`). `--` ends the options.
struct OptionSpec {
    /// Boolean switches, e.g. `--json`.
    var flags: Set<String> = []
    /// Options that take a value, e.g. `--container DIR` or `--container=DIR`.
    var values: Set<String> = []
    /// Value options that may be given more than once.
    var repeatable: Set<String> = []
    /// Short forms to their long names: `-o` to `--container`.
    var aliases: [String: String] = [:]
    /// How positionals are named in messages; nil when the command takes none.
    var positionals: String?
    /// Options this command does not take but another does, with the usage error that says so.
    var elsewhere: [String: String] = [:]

    init(options: [OptionInfo], positionals: String? = nil) {
        for option in options where option.name != OptionInfo.help.name {
            switch option.kind {
            case .flag: flags.insert(option.name)
            case .value: values.insert(option.name)
            case .repeatable: repeatable.insert(option.name)
            }
            if let short = option.short { aliases[short] = option.name }
        }
        self.positionals = positionals
    }

    func parse(_ arguments: [String], command: String) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var cursor = Cursor(arguments: arguments, command: command)
        var onlyPositionals = false
        while let argument = cursor.next() {
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                guard positionals != nil else {
                    throw UsageError(command: command, message: "unexpected argument '\(argument)'")
                }
                parsed.positionals.append(argument)
            } else if argument == "--" {
                onlyPositionals = true
            } else if argument == "-h" || argument == "--help" {
                parsed.wantsHelp = true
            } else if argument.hasPrefix("--") {
                try parseLong(argument, &cursor, into: &parsed)
            } else {
                try parseShort(argument, &cursor, into: &parsed)
            }
        }
        return parsed
    }

    /// The arguments, read one at a time.
    private struct Cursor {
        let arguments: [String]
        let command: String
        var position = 0

        mutating func next() -> String? {
            guard position < arguments.count else { return nil }
            position += 1
            return arguments[position - 1]
        }

        /// The value of `name`: given inline, or the next argument.
        mutating func value(of name: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            guard let value = next() else { throw UsageError(command: command, message: "\(name) needs a value") }
            return value
        }
    }

    /// `--name`, `--name=VALUE` or `--name VALUE`.
    private func parseLong(_ argument: String, _ cursor: inout Cursor, into parsed: inout ParsedArguments)
        throws(UsageError)
    {
        var name = argument
        var inlineValue: String?
        if let eq = argument.firstIndex(of: "=") {
            name = String(argument[..<eq])
            inlineValue = String(argument[argument.index(after: eq)...])
        }
        if flags.contains(name) {
            guard inlineValue == nil else {
                throw UsageError(command: cursor.command, message: "\(name) takes no value")
            }
            parsed.flags.insert(name)
        } else if values.contains(name) || repeatable.contains(name) {
            try record(name, try cursor.value(of: name, inline: inlineValue), into: &parsed, command: cursor.command)
        } else {
            throw unknown(name, command: cursor.command)
        }
    }

    /// Short options: `-q`, `-qv`, `-o DIR`, `-oDIR`, `-j8`.
    private func parseShort(_ argument: String, _ cursor: inout Cursor, into parsed: inout ParsedArguments)
        throws(UsageError)
    {
        var rest = Substring(argument.dropFirst())
        while let letter = rest.first {
            rest = rest.dropFirst()
            let short = "-\(letter)"
            if short == "-h" {
                parsed.wantsHelp = true
            } else if let name = aliases[short], flags.contains(name) {
                parsed.flags.insert(name)
            } else if let name = aliases[short] {
                let value = try cursor.value(of: name, inline: rest.isEmpty ? nil : String(rest))
                try record(name, value, into: &parsed, command: cursor.command)
                return
            } else {
                throw unknown(short, command: cursor.command)
            }
        }
    }

    /// Records an option's value; a second value of an option that is not repeatable is an error.
    private func record(_ name: String, _ value: String, into parsed: inout ParsedArguments, command: String)
        throws(UsageError)
    {
        if !repeatable.contains(name), parsed.values[name] != nil {
            throw UsageError(command: command, message: "\(name) given more than once")
        }
        parsed.values[name, default: []].append(value)
    }

    private func unknown(_ name: String, command: String) -> UsageError {
        if let message = elsewhere[name] { return UsageError(command: command, message: message) }
        let known = flags.union(values).union(repeatable).union(["--help"]).sorted()
        let hint = Suggestion.closest(to: name, among: known).map { " (did you mean \($0)?)" } ?? ""
        return UsageError(command: command, message: "unknown option '\(name)'\(hint)")
    }
}

/// What `OptionSpec.parse` found.
struct ParsedArguments {
    var flags: Set<String> = []
    var values: [String: [String]] = [:]
    var positionals: [String] = []
    var wantsHelp = false

    func flag(_ option: OptionInfo) -> Bool { flags.contains(option.name) }
    func value(_ option: OptionInfo) -> String? { values[option.name]?.last }
    func all(_ option: OptionInfo) -> [String] { values[option.name] ?? [] }

    /// A whole-number option within its table range; nil when absent (the library default stands).
    func int(_ option: OptionInfo, command: String) throws(UsageError) -> Int? {
        guard let raw = value(option) else { return nil }
        guard let number = Int(raw), option.range.map({ $0.contains(Double(number)) }) ?? true else {
            throw UsageError(
                command: command,
                message: "\(option.name) must be a whole number in \(Self.range(option)), got '\(raw)'")
        }
        return number
    }

    /// A decimal option within its table range; nil when absent (the library default stands).
    func double(_ option: OptionInfo, command: String) throws(UsageError) -> Double? {
        guard let raw = value(option) else { return nil }
        guard let number = Double(raw), number.isFinite, option.range.map({ $0.contains(number) }) ?? true else {
            throw UsageError(
                command: command, message: "\(option.name) must be a number in \(Self.range(option)), got '\(raw)'")
        }
        return number
    }

    private static func range(_ option: OptionInfo) -> String {
        guard let range = option.range else { return "any" }
        return "\(OptionInfo.decimal(range.lowerBound))...\(OptionInfo.decimal(range.upperBound))"
    }
}

/// A mistake in how the command was called: printed as one line plus a hint, exit status 64.
struct UsageError: Error, CustomStringConvertible {
    let command: String
    let message: String
    var description: String { "\(command): \(message)" }
}

/// "Did you mean" hints for mistyped option and subcommand names.
enum Suggestion {
    /// The candidate nearest to `name` when it is near enough to be a typo of it: at most
    /// half the candidate's length apart, and never more than 3 edits.
    ///
    ///     Suggestion.closest(to: "verfy", among: ["verify", "prepare", "bench"])   // "verify"
    static func closest(to name: String, among candidates: [String]) -> String? {
        let scored = candidates.map { (candidate: $0, distance: editDistance($0, name)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
        return best.distance <= min(3, max(1, best.candidate.count / 2)) ? best.candidate : nil
    }

    /// Levenshtein distance.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
