/// A small hand-written command-line parser in the shape of swift-argument-parser (which we
/// cannot depend on): each command declares its options as a table, `parse` fills a
/// `ParsedArguments`, the command's `validate()` checks combinations, then `run()` works.
///
///     let spec = OptionSpec(flags: ["--json"], values: ["--container"], positionals: "PATH")
///     let parsed = try spec.parse(["--json", "a.jpg"], command: "verify")
///     parsed.flag("--json")        // true
///     parsed.positionals           // ["a.jpg"]
struct OptionSpec {
    /// Boolean switches, e.g. `--json`. Aliases map a short form to its long name.
    var flags: Set<String> = []
    /// Options that take a value, e.g. `--container DIR` or `--container=DIR`.
    var values: Set<String> = []
    /// Value options that may be given more than once.
    var repeatable: Set<String> = []
    var aliases: [String: String] = [:]
    /// How positionals are named in messages; nil when the command takes none.
    var positionals: String?

    func parse(_ arguments: [String], command: String) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                guard positionals != nil else {
                    throw UsageError(command: command, message: "unexpected argument '\(argument)'")
                }
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                parsed.wantsHelp = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let eq = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<eq])
                inlineValue = String(argument[argument.index(after: eq)...])
            }
            name = aliases[name] ?? name
            if flags.contains(name) {
                guard inlineValue == nil else {
                    throw UsageError(command: command, message: "\(name) takes no value")
                }
                parsed.flags.insert(name)
            } else if values.contains(name) || repeatable.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard i < arguments.count else {
                        throw UsageError(command: command, message: "\(name) needs a value")
                    }
                    value = arguments[i]
                    i += 1
                }
                if !repeatable.contains(name), parsed.values[name] != nil {
                    throw UsageError(command: command, message: "\(name) given more than once")
                }
                parsed.values[name, default: []].append(value)
            } else {
                let known = (flags.union(values).union(repeatable)).sorted()
                let suggestion = known.min { editDistance($0, name) < editDistance($1, name) }
                let hint = suggestion.map { editDistance($0, name) <= 3 ? " (did you mean \($0)?)" : "" } ?? ""
                throw UsageError(command: command, message: "unknown option '\(name)'\(hint)")
            }
        }
        return parsed
    }
}

/// What `OptionSpec.parse` found.
struct ParsedArguments {
    var flags: Set<String> = []
    var values: [String: [String]] = [:]
    var positionals: [String] = []
    var wantsHelp = false

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// An integer option within `range`, or `defaultValue` when absent.
    func int(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>, command: String) throws(UsageError) -> Int {
        guard let raw = value(name) else { return defaultValue }
        guard let number = Int(raw), range.contains(number) else {
            throw UsageError(command: command, message: "\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), got '\(raw)'")
        }
        return number
    }

    /// A decimal option within `range`, or `defaultValue` when absent.
    func double(_ name: String, default defaultValue: Double, in range: ClosedRange<Double>, command: String) throws(UsageError) -> Double {
        guard let raw = value(name) else { return defaultValue }
        guard let number = Double(raw), range.contains(number) else {
            throw UsageError(command: command, message: "\(name) must be a number in \(range.lowerBound)...\(range.upperBound), got '\(raw)'")
        }
        return number
    }
}

/// A mistake in how the command was called: printed as one line plus a hint, exit status 64.
struct UsageError: Error, CustomStringConvertible {
    let command: String
    let message: String
    var description: String { "\(command): \(message)" }
}

/// Levenshtein distance, for "did you mean" hints on short option names.
private func editDistance(_ a: String, _ b: String) -> Int {
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
