import Foundation

/// A thread a test starts and then waits for: `join()` is woken when the body returns (no polling).
///
///     let client = TestThread { answer.update { $0 = try? TestHTTPClient.get(port: port, path: path) } }
///     client.start()
///     client.join()
public final class TestThread: @unchecked Sendable {
    private let thread: Thread
    private let finished = Watched(false)

    public init(name: String = "test thread", _ body: @escaping @Sendable () -> Void) {
        let finished = self.finished
        thread = Thread {
            body()
            finished.update { $0 = true }
        }
        thread.name = name
    }

    public func start() { thread.start() }

    /// Blocks until the body has returned (a broken test: up to `timeout`, then false).
    @discardableResult
    public func join(timeout: Duration = .seconds(600)) -> Bool {
        finished.waitBlocking(timeout: timeout) { $0 } != nil
    }

    /// Whether the body has returned.
    public var isFinished: Bool { finished.value }
}

extension Array where Element == TestThread {
    /// Starts every thread.
    public func start() { for thread in self { thread.start() } }

    /// Waits for every thread.
    public func join() { for thread in self { thread.join() } }
}
