import Foundation
import Pipeline
import Testing
import Verification

@testable import pushattach

/// The limit flags both commands take (`LimitOptions`): one table, whose defaults are what the
/// library does when the flag is absent, for `verify` and for `prepare`.
@Suite("pushattach limit options")
struct LimitOptionsTests {
    @Test func defaultsAreTheLibrarysForBothCommands() {
        let verify = VerifyOptions().policy
        let prepare = PrepareOptions(container: URL(fileURLWithPath: "/c"), inputs: []).policy
        #expect(verify == CheckPolicy())
        #expect(prepare == CheckPolicy())
        #expect(LimitOptions.pixelBudget.defaultText == OptionInfo.decimal(Double(verify.pixelBudget) / 1e6))
        #expect(LimitOptions.memoryBudget.defaultText == OptionInfo.decimal(Double(verify.rules.memoryBudget) / 1e6))
    }

    @Test func bothCommandsListTheSameLimitOptions() {
        for option in LimitOptions.all {
            #expect(VerifyCommand.Options.all.contains { $0.name == option.name && $0.help == option.help })
            #expect(PrepareCommand.Options.all.contains { $0.name == option.name && $0.help == option.help })
        }
    }

    @Test func valuesAreReadInPixelsAndBytes() throws {
        let parsed = try VerifyCommand.spec.parse(
            ["--pixel-budget", "0.5", "--memory-budget=12.5", "a.jpg"], command: "pushattach verify")
        let values = try LimitOptions.parse(parsed, command: "pushattach verify")
        #expect(values.pixelBudget == 500_000)
        #expect(values.memoryBudget == 12_500_000)
        let command = try VerifyCommand(parsed)
        #expect(command.options.pixelBudget == 500_000 && command.options.rules.memoryBudget == 12_500_000)
    }
}
