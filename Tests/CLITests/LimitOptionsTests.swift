import Foundation
import PushAttach
import PushAttachBatch
import SystemSupport
import TestSupport
import Testing
import Verification

@testable import pushattach

/// The limit flags both commands take (`LimitOptions`): one table, whose defaults are what the
/// library does when the flag is absent, for `verify` and for `prepare`.
@Suite("pushattach limit options", .tags(.slow), .notInFastTier)
struct LimitOptionsTests {
    @Test func defaultsAreTheLibrarysForBothCommands() {
        let verify = VerifyOptions().policy
        let prepare = PrepareOptions(container: URL(fileURLWithPath: "/c"), inputs: []).policy
        #expect(verify == AttachmentPolicy())
        #expect(prepare == AttachmentPolicy())
        #expect(LimitOptions.pixelBudget.defaultText == OptionInfo.decimal(Double(verify.pixelBudget) / 1e6))
        #expect(LimitOptions.decodedBudget.defaultText == OptionInfo.decimal(Double(verify.rules.decodedBudget) / 1e6))
    }

    @Test func bothCommandsListTheSameLimitOptions() {
        for option in LimitOptions.all {
            #expect(VerifyCommand.Options.all.contains { $0.name == option.name && $0.help == option.help })
            #expect(PrepareCommand.Options.all.contains { $0.name == option.name && $0.help == option.help })
        }
    }

    @Test func valuesAreReadInPixelsAndBytes() throws {
        let parsed = try VerifyCommand.spec.parse(
            ["--pixel-budget", "0.5", "--decoded-budget=12.5", "a.jpg"], command: "pushattach verify")
        let values = try LimitOptions.parse(parsed, command: "pushattach verify")
        #expect(values.pixelBudget == 500_000)
        #expect(values.decodedBudget == 12_500_000)
        let command = try VerifyCommand(parsed)
        #expect(command.verifier.policy.pixelBudget == 500_000 && command.verifier.policy.rules.decodedBudget == 12_500_000)
    }

    @Test func prepareReadsTheProcessBudgetsInMegabytes() throws {
        let parsed = try PrepareCommand.spec.parse(
            ["-o", "out", "--memory-budget", "64", "--spool-budget=500", "--decoded-budget", "10", "list.txt"],
            command: "pushattach prepare")
        let command = try PrepareCommand(parsed)
        #expect(command.configuration.admissionBudget == 64_000_000)
        #expect(command.configuration.spoolBudget == 500_000_000)
        #expect(command.configuration.policy.rules.decodedBudget == 10_000_000)
        #expect(command.configuration.limits.decodedBudget == 10_000_000)
    }

    @Test func theProcessBudgetsDefaultToTheLibrarys() throws {
        let library = AttachmentPreparer.Configuration()
        #expect(library.admissionBudget == 256_000_000 && library.spoolBudget == 2_000_000_000)
        #expect(PrepareCommand.Options.memoryBudget.defaultText == "256")
        #expect(PrepareCommand.Options.spoolBudget.defaultText == "2000")
        let command = try PrepareCommand(PrepareCommand.spec.parse(["-o", "out", "x"], command: "pushattach prepare"))
        #expect(command.configuration.admissionBudget == library.admissionBudget)
        #expect(command.configuration.spoolBudget == library.spoolBudget)
    }

    @Test func theMemoryBudgetGivenToVerifyIsAUsageErrorNamingPrepare() {
        #expect {
            _ = try VerifyCommand.spec.parse(["--memory-budget", "64", "a.jpg"], command: "pushattach verify")
        } throws: { error in
            "\(error)".contains("--memory-budget is a prepare option") && "\(error)".contains("--decoded-budget")
        }
    }
}
