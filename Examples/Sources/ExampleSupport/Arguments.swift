import Foundation

/// The few arguments an example takes: `--flag`, `--option value`, and positional values.
/// (The examples stay free of dependencies, so this is a small hand-written parser.)
public struct Arguments: Sendable {
    public private(set) var flags: Set<String> = []
    public private(set) var options: [String: String] = [:]
    public private(set) var positional: [String] = []

    /// Parses the process's arguments; `valued` names the options that take a value.
    /// Anything malformed ends the process with `usage` and status 64.
    public init(usage: String, valued: Set<String> = [], flags known: Set<String> = []) {
        var rest = Array(CommandLine.arguments.dropFirst())[...]
        while let argument = rest.popFirst() {
            if argument == "-h" || argument == "--help" {
                print("usage: \(usage)")
                exit(0)
            } else if valued.contains(argument) {
                guard let value = rest.popFirst() else { Self.fail("\(argument) needs a value", usage: usage) }
                options[argument] = value
            } else if known.contains(argument) {
                flags.insert(argument)
            } else if argument.hasPrefix("--") {
                Self.fail("unknown option '\(argument)'", usage: usage)
            } else {
                positional.append(argument)
            }
        }
    }

    /// True when `flag` was given.
    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The positional arguments as `FOLDER URL...`; exits with the usage when they are not.
    public func folderAndURLs(usage: String) -> (folder: URL, urls: [URL]) {
        guard positional.count >= 2 else { Self.fail("expected a folder and URLs", usage: usage) }
        var urls: [URL] = []
        for text in positional.dropFirst() {
            guard let url = URL(string: text) else { Self.fail("not a URL: \(text)", usage: usage) }
            urls.append(url)
        }
        return (URL(fileURLWithPath: positional[0]), urls)
    }

    /// Prints `message` and the usage to standard error and exits with 64 (usage error).
    public static func fail(_ message: String, usage: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\nusage: \(usage)\n".utf8))
        exit(64)
    }
}
