import Fetch
import Foundation
import PushAttach
import Pipeline
import TestSupport
import Testing
import Verification

@testable import pushattach

/// The library names its settings (`FetchPolicy.allowedHosts`), never a flag; the command line
/// translates them (`FlagTerms`). Every library message that names a setting is here: its
/// library text names no flag, and its translation names the flag and no library setting.
@Suite("pushattach flag terms")
struct FlagTermsTests {
    /// Library messages that name a setting, with the flag the command line shows for it.
    static let messages: [(text: String, flag: String)] = [
        (FetchError.hostNotAllowed(url: "https://a.example/x.jpg", host: "a.example").description, "--allow-host"),
        (
            FetchError.addressRefused(url: "http://10.0.0.1/x.jpg", address: "10.0.0.1", rule: "private").description,
            "--allow-private-networks"
        ),
        (
            FetchError.spoolBudgetExhausted(url: "https://a.example/v.mp4", needed: 50_000_000, budget: 10_000_000)
                .description,
            "raise --spool-budget or lower --concurrency"
        ),
        (ContainerError.system(call: "write", path: "/c/x", errno: ENOSPC).description, "re-run with --resume"),
        (ContainerError.system(call: "open", path: "/c/x", errno: EACCES).description, "another --container"),
        (ContainerError.system(call: "open", path: "/c/x", errno: ENOENT).description, "the --container path"),
        (ContainerError.system(call: "open", path: "/c/x", errno: ENOTDIR).description, "another --container"),
        (ContainerError.system(call: "open", path: "/c/x", errno: EISDIR).description, "another --container"),
        (ContainerError.system(call: "open", path: "/c/x", errno: EMFILE).description, "lower --concurrency"),
        (
            ContainerError.system(call: "open", path: "/c/x", errno: ENAMETOOLONG).description,
            "shorter --container path"
        ),
        (ContainerError.locked(path: "/c/.pushattach.lock", holderPID: 42).description, "another --container"),
        (
            ContainerError.mismatched(path: "/c", reason: Manifest.incompleteReason("shard 1/2 is not done")).description,
            "pass --partial"
        ),
        (
            ContainerError.mismatched(path: "/c", reason: Preparer.unshardedRunReason(shards: 4)).description,
            "the same --shard K/N"
        ),
        (verifyReason("jpeg/misc/sharp_giant-image_20000x14000.jpg"), "pass a higher --pixel-budget"),
        (verifyReason("truncated.jpg", bundled: true), "pass --accept-damaged"),
        (verifyReason("lossy-320x240.webp", bundled: true), "prepare transcodes it"),
    ]

    static func verifyReason(_ path: String, bundled: Bool = false) -> String {
        let url = bundled ? Corpus.testImages.appendingPathComponent(path) : Corpus.url(path)
        return Verifier().verify(fileAt: url).reason ?? ""
    }

    /// What no command-line text may contain: the library's names for its settings.
    static let libraryNames = ["FetchPolicy.", "PrepareOptions.", "CheckPolicy.", "AppleRules.", "Preparer "]

    @Test(arguments: messages.indices)
    func libraryTextNamesNoFlagAndItsTranslationNamesTheFlag(index: Int) {
        let (text, flag) = Self.messages[index]
        #expect(!text.isEmpty)
        #expect(!text.contains(" --"), "library text names a flag: \(text)")
        let shown = FlagTerms.translated(text)
        #expect(shown.contains(flag), "\(shown)")
        for name in Self.libraryNames { #expect(!shown.contains(name), "\(shown)") }
    }

    /// Every phrase row of the table matches a message the library really says, so a reworded
    /// message cannot silently fall back to the bare setting name (or to nothing).
    @Test func everyPhraseRowMatchesALibraryMessage() {
        let phrases = FlagTerms.table.filter { $0.library.contains(" ") }
        for row in phrases {
            #expect(Self.messages.contains { $0.text.contains(row.library) }, "no message says '\(row.library)'")
        }
    }

    /// Text that names no setting passes through unchanged, and a translation is stable.
    @Test func translationLeavesOtherTextAloneAndIsIdempotent() {
        let plain = "HTTP 404 from https://cdn.example/a.jpg; only 2xx is accepted"
        #expect(FlagTerms.translated(plain) == plain)
        for (text, _) in Self.messages {
            let once = FlagTerms.translated(text)
            #expect(FlagTerms.translated(once) == once)
        }
    }

    /// Reports and prepare events are translated in every text they carry.
    @Test func reportsAndEventsAreTranslated() throws {
        var report = AttachmentVerifier().verifyBlocking(
            fileAt: Corpus.url("jpeg/misc/sharp_giant-image_20000x14000.jpg"))
        report.warnings = ["raise CheckPolicy.pixelBudget"]
        let shown = FlagTerms.translated(report)
        #expect(shown.reason?.contains("--pixel-budget") == true)
        #expect(shown.warnings == ["raise --pixel-budget"])

        var summary = BatchSummary(folder: URL(fileURLWithPath: "/c"))
        summary.reasons = ["host a of b is not in the allowed hosts; allow the host in FetchPolicy.allowedHosts": 2]
        #expect(
            FlagTerms.translated(summary).reasons == [
                "host a of b is not in the allowed hosts; allow the host with --allow-host": 2
            ])
        guard case .note(let note) = FlagTerms.translated(AttachmentBatch.Event.note("lower PrepareOptions.maxInFlight"))
        else {
            Issue.record("a note stays a note")
            return
        }
        #expect(note == "lower --concurrency")
    }
}
