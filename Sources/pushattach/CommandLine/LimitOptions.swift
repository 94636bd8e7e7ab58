import PushAttach

/// The limits `verify` and `prepare` both take: one help text, one range and one default each,
/// read from the library's verifier defaults (`AttachmentVerifier()`, the preparer's too), so both commands judge the
/// same file by the same numbers.
///
///     let limits = try LimitOptions.parse(arguments, command: "pushattach verify")
///     if let pixels = limits.pixelBudget { options.policy.pixelBudget = pixels }
enum LimitOptions {
    static let pixelBudget = OptionInfo.number(
        "--pixel-budget", "MP",
        "Refuse images over this many megapixels (width x height, read from the header) as too large (102), before decoding them.",
        default: Double(AttachmentVerifier().policy.pixelBudget) / 1e6, in: 0.001...100_000)
    static let decodedBudget = OptionInfo.number(
        "--decoded-budget", "MB",
        "The memory one decoded image may take in the extension, width x height x 4, in 10^6 bytes: verify warns about images over it, prepare fits images under it.",
        default: Double(AttachmentVerifier().policy.rules.decodedBudget) / 1e6, in: 1...100_000)

    /// In the order both commands list them.
    static let all = [pixelBudget, decodedBudget]

    /// The values given, in pixels and bytes; nil for an option not given (the library's
    /// default stands).
    struct Values {
        var pixelBudget: Int?
        /// `--decoded-budget`: the extension's decoded-image budget (`AppleRules.decodedBudget`).
        var decodedBudget: Int?
    }

    static func parse(_ arguments: ParsedArguments, command: String) throws(UsageError) -> Values {
        Values(
            pixelBudget: try arguments.double(pixelBudget, command: command).map { Int($0 * 1_000_000) },
            decodedBudget: try arguments.double(decodedBudget, command: command).map { Int($0 * 1_000_000) })
    }
}
