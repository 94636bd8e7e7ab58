import PushAttach

/// The limits `verify` and `prepare` both take, so both plan a file by the same numbers: one
/// help text, one range and one default each, read from the library's policy defaults
/// (`AttachmentPolicy()`, the verifier's and the preparer's).
///
///     let limits = try LimitOptions.parse(arguments, command: "pushattach verify")
///     limits.apply(to: &verifier.policy)
enum LimitOptions {
    private static let defaults = AttachmentPolicy()

    static let maxLongSide = OptionInfo.int(
        "--max-long-side", "N", "Fit images to N pixels on the long side.", default: defaults.maxLongSide,
        in: 16...16384)
    static let pixelBudget = OptionInfo.number(
        "--pixel-budget", "MP",
        "Refuse images over this many megapixels (width x height, read from the header) as too large (102), before decoding them.",
        default: Double(defaults.pixelBudget) / 1e6, in: 0.001...100_000)
    static let decodedBudget = OptionInfo.number(
        "--decoded-budget", "MB",
        "The memory one decoded image may take in the extension, width x height x 4, in 10^6 bytes: images over it are fitted under it.",
        default: Double(defaults.rules.decodedBudget) / 1e6, in: 1...100_000)
    static let imageInputCap = OptionInfo.number(
        "--image-input-cap", "MB",
        "The largest image taken in to be shrunk, in 10^6 bytes: larger images are refused as too large (102) as soon as their size shows.",
        default: Double(defaults.imageInputCap) / 1e6, in: 0.001...1_000_000)

    /// In the order both commands list them.
    static let all = [maxLongSide, pixelBudget, decodedBudget, imageInputCap]

    /// The values given; nil for an option not given (the library's default stands).
    struct Values {
        var maxLongSide: Int?
        var pixelBudget: Int?
        /// `--decoded-budget`: the extension's decoded-image budget (`AppleRules.decodedBudget`).
        var decodedBudget: Int?
        var imageInputCap: Int?

        /// The values given, set in `policy`.
        func apply(to policy: inout AttachmentPolicy) {
            if let maxLongSide { policy.maxLongSide = maxLongSide }
            if let pixelBudget { policy.pixelBudget = pixelBudget }
            if let decodedBudget { policy.rules.decodedBudget = decodedBudget }
            if let imageInputCap { policy.imageInputCap = imageInputCap }
        }
    }

    static func parse(_ arguments: ParsedArguments, command: String) throws(UsageError) -> Values {
        Values(
            maxLongSide: try arguments.int(maxLongSide, command: command),
            pixelBudget: try arguments.double(pixelBudget, command: command).map { Int($0 * 1_000_000) },
            decodedBudget: try arguments.double(decodedBudget, command: command).map { Int($0 * 1_000_000) },
            imageInputCap: try arguments.double(imageInputCap, command: command).map { Int($0 * 1_000_000) })
    }
}
