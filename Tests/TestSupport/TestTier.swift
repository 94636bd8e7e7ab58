import Foundation
import Testing

extension Tag {
    /// Left out of the fast tier (`make check`): the command line run as a program, the batch
    /// pipeline, the server, the extension's suites, and the engine's suites over full-size
    /// photos, big animations and large sweeps. Every suite so tagged also carries
    /// `.notInFastTier`, which skips it there.
    @Tag public static var slow: Self
}

/// Which tier of the tests runs: `PUSHATTACH_TEST_TIER=fast` in the environment is the fast tier
/// (`make check`); anything else runs every test (`make test`).
public enum TestTier {
    /// True in the fast tier.
    public static let isFast = ProcessInfo.processInfo.environment["PUSHATTACH_TEST_TIER"] == "fast"
}

extension Trait where Self == ConditionTrait {
    /// Skips the suite or test in the fast tier (`PUSHATTACH_TEST_TIER=fast`), reported as
    /// skipped; it runs in every other run. Goes with `.tags(.slow)`.
    public static var notInFastTier: Self {
        .disabled(if: TestTier.isFast, "a slow suite (.tags(.slow)): left out of the fast tier, PUSHATTACH_TEST_TIER=fast")
    }
}
