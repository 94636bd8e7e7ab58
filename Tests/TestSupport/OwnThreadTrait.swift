import Testing

/// `.ownThread`: each test of the suite runs with a `ThreadExecutor` of its own as its task
/// executor preference, so nothing it awaits waits behind the CPU-bound suites sharing the
/// process's cooperative pool, and its wall-clock limits measure only its own work.
public struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public init() {}

    /// One executor per test case (a test function gets one scope as a whole, and one per case).
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? { testCase == nil ? nil : self }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let executor = ThreadExecutor(name: "test \(test.name)")
        defer { executor.finish() }
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    public static var ownThread: Self { Self() }
}
