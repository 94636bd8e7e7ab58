import Foundation
import Testing

extension Tag {
    /// Left out of the fast tier (`make check`): the command line run as a program, the batch
    /// pipeline, the server, the extension's suites, and the engine's suites over full-size
    /// photos, big animations and large sweeps. Every suite so tagged also carries
    /// `.notInFastTier`, which skips it there. `Scripts/test-tier-check` (run by `make test`) fails
    /// when a suite of CLITests, PipelineTests, AttachmentServerTests or PushAttachExtensionTests
    /// lacks either, or when a suite or test carries one without the other.
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

/// How long a test waits for an event before it calls itself broken.
public enum HangGuard {
    /// The bound on a wait for an event (a request reaching the test server, a file appearing):
    /// it only ends a broken test, never a working one. Twenty minutes: with two CPU hogs beside
    /// `make test` on two cores, the CPU-bound suites held the cooperative pool long enough that
    /// calls started by other suites reached the test server only after more than 300 s.
    public static let wait: Duration = .seconds(1200)
}
