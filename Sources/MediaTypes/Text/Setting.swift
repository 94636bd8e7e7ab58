/// A setting a message tells its reader to change ("allow the host with …", "re-run with …").
/// Messages carry the setting, not its spelling: whoever shows them names it, the library by its
/// API (`FetchPolicy.allowedHosts`), the command line by its flag (`--allow-host`).
///
///     let names = SettingNames.library
///     "allow the host with \(names[.allowedHosts])"   // "allow the host with FetchPolicy.allowedHosts"
public enum Setting: String, Sendable, Hashable, CaseIterable {
    /// The hosts downloads may reach.
    case allowedHosts
    /// Whether loopback, private and link-local addresses may be fetched.
    case allowPrivateNetworks
    /// Disk reserved for spooled download bodies.
    case spoolBudget
    /// Downloads running at once.
    case maxInFlight
    /// The folder a batch writes into.
    case container
    /// Continuing an interrupted batch.
    case resume
    /// This run's part of a sharded batch.
    case shard
    /// Writing a manifest from the shards that finished, when some did not.
    case partialMerge
    /// The largest width x height decoded.
    case pixelBudget
    /// Using what decodes of a damaged image.
    case acceptDamaged
    /// Refusing a file whose claims disagree with its bytes, or whose codec warns.
    case strict
    /// The largest image taken in to be shrunk.
    case imageInputCap

    /// The setting as the library's API spells it (a noun phrase: messages say "use another
    /// container folder", "re-run with AttachmentBatch.Options.resume").
    public var libraryName: String {
        switch self {
        case .allowedHosts: "FetchPolicy.allowedHosts"
        case .allowPrivateNetworks: "FetchPolicy.allowPrivateNetworks"
        case .spoolBudget: "Configuration.spoolBudget"
        case .maxInFlight: "Configuration.maxInFlight"
        case .container: "container folder"
        case .resume: "AttachmentBatch.Options.resume"
        case .shard: "AttachmentBatch.Options.shard"
        case .partialMerge: "partial: true"
        case .pixelBudget: "AttachmentPolicy.pixelBudget"
        case .acceptDamaged: "AttachmentPolicy.acceptDamaged"
        case .strict: "AttachmentPolicy.strict"
        case .imageInputCap: "AttachmentPolicy.imageInputCap"
        }
    }
}

/// How messages spell each `Setting`: the library's API names unless told otherwise.
///
///     var names = SettingNames.library
///     names[.resume]                               // "AttachmentBatch.Options.resume"
///     SettingNames([.resume: "--resume"])[.resume] // "--resume"
public struct SettingNames: Sendable, Hashable {
    private var names: [Setting: String]

    /// The library's own names (`Setting.libraryName`).
    public static let library = SettingNames([:])

    /// `names` for the settings it lists; the library's name for any other.
    public init(_ names: [Setting: String]) {
        self.names = names
    }

    /// How `setting` is spelled.
    public subscript(_ setting: Setting) -> String {
        names[setting] ?? setting.libraryName
    }
}
