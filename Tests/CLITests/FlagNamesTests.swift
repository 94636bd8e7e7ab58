import Fetch
import Foundation
import ImageEngine
import MediaTypes
import PushAttach
import PushAttachBatch
import SystemSupport
import TestSupport
import Testing

@testable import pushattach

/// Messages carry the setting that would fix them (`Setting`), never its spelling: the library
/// spells it by its API (`SettingNames.library`), the command line by its flag (`FlagNames`).
/// Every library error that names a setting is here, with the setting it carries and the flag
/// the command line shows; no string is rewritten anywhere.
@Suite("pushattach flag names", .tags(.slow), .notInFastTier)
struct FlagNamesTests {
    /// Each error that names a setting: the setting, its text in `names`, and what the command
    /// line's text must say.
    static let messages: [(setting: Setting, text: @Sendable (SettingNames) -> String, flagText: String)] = [
        (.allowedHosts, { FetchError.hostNotAllowed(url: "https://a.example/x.jpg", host: "a.example").description(naming: $0) }, "allow the host with --allow-host"),
        (.allowPrivateNetworks, { FetchError.addressRefused(url: "http://10.0.0.1/x.jpg", address: "10.0.0.1", rule: "private").description(naming: $0) }, "permit them with --allow-private-networks"),
        (.spoolBudget, { FetchError.spoolBudgetExhausted(url: "https://a.example/v.mp4", needed: 50_000_000, budget: 10_000_000).description(naming: $0) }, "raise --spool-budget or lower --concurrency"),
        (.resume, { ContainerError.system(call: "write", path: "/c/x", errno: ENOSPC).description(naming: $0) }, "re-run with --resume"),
        (.container, { ContainerError.system(call: "open", path: "/c/x", errno: EACCES).description(naming: $0) }, "another --container"),
        (.container, { ContainerError.system(call: "open", path: "/c/x", errno: ENOENT).description(naming: $0) }, "the --container path"),
        (.container, { ContainerError.system(call: "open", path: "/c/x", errno: ENOTDIR).description(naming: $0) }, "another --container"),
        (.container, { ContainerError.system(call: "open", path: "/c/x", errno: EISDIR).description(naming: $0) }, "another --container"),
        (.maxInFlight, { ContainerError.system(call: "open", path: "/c/x", errno: EMFILE).description(naming: $0) }, "lower --concurrency"),
        (.container, { ContainerError.system(call: "open", path: "/c/x", errno: ENAMETOOLONG).description(naming: $0) }, "shorter --container path"),
        (.container, { ContainerError.locked(path: "/c/.pushattach.lock", holderPID: 42).description(naming: $0) }, "another --container"),
        (.partialMerge, { ContainerError.incompleteShards(path: "/c", missing: "shard 1 of 2 is not complete").description(naming: $0) }, "merge with --partial"),
        (.shard, { ContainerError.shardedContainer(path: "/c", shards: 4).description(naming: $0) }, "the same --shard K/N"),
        (.acceptDamaged, { ProcessingError.damaged(.jpeg, detail: "Premature end of JPEG file").description(naming: $0) }, "use what decodes with --accept-damaged"),
    ]

    /// The errors behind `messages`, for their `setting`.
    static let settings: [Setting?] = [
        FetchError.hostNotAllowed(url: "u", host: "h").setting,
        FetchError.addressRefused(url: "u", address: "10.0.0.1", rule: "private").setting,
        FetchError.spoolBudgetExhausted(url: "u", needed: 2, budget: 1).setting,
        ContainerError.system(call: "write", path: "/c/x", errno: ENOSPC).setting,
        ContainerError.system(call: "open", path: "/c/x", errno: EACCES).setting,
        ContainerError.system(call: "open", path: "/c/x", errno: ENOENT).setting,
        ContainerError.system(call: "open", path: "/c/x", errno: ENOTDIR).setting,
        ContainerError.system(call: "open", path: "/c/x", errno: EISDIR).setting,
        ContainerError.system(call: "open", path: "/c/x", errno: EMFILE).setting,
        ContainerError.system(call: "open", path: "/c/x", errno: ENAMETOOLONG).setting,
        ContainerError.locked(path: "/c", holderPID: nil).setting,
        ContainerError.incompleteShards(path: "/c", missing: "m").setting,
        ContainerError.shardedContainer(path: "/c", shards: 4).setting,
        ProcessingError.damaged(.jpeg, detail: "d").setting,
    ]

    @Test(arguments: messages.indices)
    func eachErrorCarriesItsSettingAndEachFaceSpellsIt(index: Int) {
        let (setting, text, flagText) = Self.messages[index]
        #expect(Self.settings[index] == setting)
        let library = text(.library)
        #expect(library.contains(setting.libraryName), "\(library)")
        #expect(!library.contains(" --"), "the library's text names a flag: \(library)")
        let shown = text(FlagNames.commandLine)
        #expect(shown.contains(flagText), "\(shown)")
        for other in Setting.allCases { #expect(!shown.contains(other.libraryName), "\(shown)") }
    }

    /// Every setting has a flag, each names an option the commands really have, and `serve`
    /// names its cache folder `--cache`.
    @Test func everySettingHasARealFlag() {
        let options = Set(
            [PrepareCommand.doc, VerifyCommand.doc, MergeCommand.doc].flatMap(\.options).map(\.name))
        for setting in Setting.allCases {
            let flag = FlagNames.flag(for: setting)
            let name = String(flag.prefix { $0 != " " })
            #expect(options.contains(name), "\(setting) is spelled \(flag), which no command has")
            #expect(FlagNames.commandLine[setting] == flag)
        }
        #expect(FlagNames.serve[.container] == "--cache" && FlagNames.serve[.allowedHosts] == "--allow-source")
        // serve's reasons reach a client, which can change none of the library's settings.
        #expect(FlagNames.serve[.spoolBudget] == "the server's spool budget", "serve has no such flag")
        #expect(FlagNames.serve[.pixelBudget] == "the server's pixel budget")
    }

    /// What the command line shows is what it records: `verify` and `prepare` (its console, its
    /// `--json` lines and the manifest it writes) name the flag; the library, given no names,
    /// names its API.
    @Test func theConsoleAndTheManifestNameTheSameFlag() throws {
        let truncated = Corpus.testImages.appendingPathComponent("truncated.jpg")
        let verify = try ProcessRunner.run("pushattach", ["verify", "--json", truncated.path])
        #expect(verify.stdout.contains("use what decodes with --accept-damaged"), "\(verify.stdout)")
        #expect(!verify.stdout.contains("AttachmentPolicy.acceptDamaged"))

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flags-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let prepare = try ProcessRunner.run("pushattach", ["prepare", truncated.path, "-o", dir.path, "--json"])
        #expect(prepare.stdout.contains("use what decodes with --accept-damaged"), "\(prepare.stdout)")
        let manifest = try String(contentsOf: dir.appendingPathComponent("manifest.json"), encoding: .utf8)
        #expect(manifest.contains("use what decodes with --accept-damaged"), "\(manifest)")

        let library = AttachmentVerifier().verifyBlocking(fileAt: truncated)
        #expect(library.reason?.contains("use what decodes with AttachmentPolicy.acceptDamaged") == true, "\(library)")
    }
}
