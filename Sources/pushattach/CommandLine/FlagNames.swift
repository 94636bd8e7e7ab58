import PushAttach
import PushAttachBatch

/// The flag that sets each `Setting`, so the library's messages ("allow the host with …",
/// "re-run with …") name what a command-line user types. The library carries the setting, not
/// its spelling; the commands hand these names to it (`AttachmentPolicy.settingNames` in
/// `Configuration.policy` and `AttachmentVerifier.policy`, `AttachmentMerge.run(settingNames:)`),
/// so the console,
/// `--json` and the manifest all say `--pixel-budget` where a library user reads
/// `AttachmentPolicy.pixelBudget`.
///
///     FlagNames.flag(for: .allowedHosts)     // "--allow-host"
///     FlagNames.serve[.container]            // "--cache"
enum FlagNames {
    /// The flag for `setting` (one switch over every setting: a new one does not compile until
    /// it has a flag).
    static func flag(for setting: Setting) -> String {
        switch setting {
        case .allowedHosts: "--allow-host"
        case .allowPrivateNetworks: "--allow-private-networks"
        case .spoolBudget: "--spool-budget"
        case .maxInFlight: "--concurrency"
        case .container: "--container"
        case .resume: "--resume"
        case .shard: "--shard K/N"
        case .partialMerge: "--partial"
        case .pixelBudget: "--pixel-budget"
        case .acceptDamaged: "--accept-damaged"
        case .strict: "--strict"
        case .imageInputCap: "--image-input-cap"
        }
    }

    /// `prepare`, `verify` and `merge`.
    static let commandLine = SettingNames(
        Dictionary(uniqueKeysWithValues: Setting.allCases.map { ($0, flag(for: $0)) }))

    /// `serve`: its folder is the cache, its allowed hosts `--allow-source`. Its reasons reach a
    /// client (an extension), not the operator, so a setting `serve` has no flag for is named as
    /// the server's, never by a library API a client cannot change.
    static let serve = SettingNames(
        Dictionary(uniqueKeysWithValues: Setting.allCases.map { ($0, "the server's \(serveName(for: $0))") }).merging([
            .container: "--cache", .allowedHosts: "--allow-source", .allowPrivateNetworks: "--allow-private-networks",
        ]) { _, flag in flag })

    /// What a setting `serve` has no flag for is, in words.
    private static func serveName(for setting: Setting) -> String {
        switch setting {
        case .allowedHosts: "allowed sources"
        case .allowPrivateNetworks: "private-network setting"
        case .spoolBudget: "spool budget"
        case .maxInFlight: "concurrency"
        case .container: "cache folder"
        case .resume, .shard, .partialMerge: "batch settings"
        case .pixelBudget: "pixel budget"
        case .acceptDamaged: "damage policy"
        case .strict: "strictness"
        case .imageInputCap: "image input cap"
        }
    }
}
