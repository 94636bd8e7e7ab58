import Foundation
import SystemSupport

/// One piece of work per key at a time, whatever the number of callers: the first caller of a
/// key starts it, later callers wait for the same result (each with its own deadline), and the
/// key is free again once it is done. `serve` puts every cache miss through one, so a thousand
/// requests for one uncached URL make one download.
///
///     let flights = SingleFlight<Data?>(limit: 64)
///     let bytes = await flights.value(for: key.digest, timeout: .seconds(20)) { await fetch(url) }
///     // nil: the deadline passed first (the work goes on, and fills the cache for the next caller)
///
/// `limit` bounds the distinct keys in flight (not the callers per key), work that every caller
/// gave up on included: past it `join` answers `.full` and the caller should say "try again
/// later". Work with no caller left goes on (bound its time in the work itself) until it ends or
/// `cancelAll()` cancels it.
public final class SingleFlight<Value: Sendable>: @unchecked Sendable {
    /// How a caller joined.
    public enum Joined: Sendable, Hashable {
        /// It started the work.
        case started
        /// It waits for work another caller started.
        case waiting
        /// Nothing was started: `limit` keys are in flight. Its completion is never called.
        case full
    }

    /// The most keys in flight at once.
    public let limit: Int
    private let start: @Sendable (@escaping @Sendable () async -> Void) -> Task<Void, Never>
    private let lock = NSLock()
    private var flights: [String: Flight] = [:]
    private var nextWaiter = 0

    private final class Flight {
        var waiters: [Int: @Sendable (Value?) -> Void] = [:]
        var task: Task<Void, Never>?
        /// Set by `cancelAll` before the task was stored: cancel it once it is.
        var cancelled = false
    }

    /// A set of flights allowing `limit` keys in flight at once.
    ///
    /// - Parameters:
    ///   - limit: the most keys in flight at once.
    ///   - start: how a flight's work is started: by default `Task { await work() }`; a server
    ///     that keeps its own threads passes `{ work in Task(executorPreference: mine) { await work() } }`.
    ///     The task is kept for `cancelAll()`.
    public init(
        limit: Int,
        start: @escaping @Sendable (@escaping @Sendable () async -> Void) -> Task<Void, Never> = { work in
            Task { await work() }
        }
    ) {
        self.limit = max(1, limit)
        self.start = start
    }

    /// Keys in flight now.
    public var inFlight: Int { lock.withLock { flights.count } }

    /// Keys in flight that no caller waits for any more (each gave up at its deadline): work
    /// that outlived its requests.
    public var unattended: Int { lock.withLock { flights.values.count { $0.waiters.isEmpty } } }

    /// Cancels the work of every flight (its task; the work should then end soon). Its callers
    /// still get its value, whatever the work returns once cancelled.
    public func cancelAll() {
        let tasks: [Task<Void, Never>] = lock.withLock {
            for flight in flights.values { flight.cancelled = true }
            return flights.values.compactMap(\.task)
        }
        for task in tasks { task.cancel() }
    }

    /// Joins `key`'s flight, starting `work` in a new task when there is none. `completion` is
    /// called once: with the work's value, or with nil when `timeout` passes first. It runs on
    /// the task that finished the work, or on a timer's thread: keep it quick.
    public func join(
        _ key: String, timeout: Duration, work: @escaping @Sendable () async -> Value,
        completion: @escaping @Sendable (Value?) -> Void
    ) -> Joined {
        let (joined, id, started): (Joined, Int, Flight?) = lock.withLock {
            nextWaiter += 1
            if let flight = flights[key] {
                flight.waiters[nextWaiter] = completion
                return (.waiting, nextWaiter, nil)
            }
            guard flights.count < limit else { return (.full, 0, nil) }
            let flight = Flight()
            flight.waiters[nextWaiter] = completion
            flights[key] = flight
            return (.started, nextWaiter, flight)
        }
        if joined == .full { return .full }
        if let started {
            let task = start {
                let value = await work()
                self.finish(key, with: value)
            }
            let cancel: Bool = lock.withLock {
                started.task = task
                return started.cancelled
            }
            if cancel { task.cancel() }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, timeout.seconds)) {
            self.expire(key, waiter: id)
        }
        return joined
    }

    /// Waits for `key`'s value (starting `work` when no flight has that key), or nil once
    /// `timeout` passes or when `limit` keys are in flight.
    public func value(for key: String, timeout: Duration, work: @escaping @Sendable () async -> Value) async
        -> Value?
    {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let joined = join(key, timeout: timeout, work: work) { continuation.resume(returning: $0) }
            if joined == .full { continuation.resume(returning: nil) }
        }
    }

    private func finish(_ key: String, with value: Value) {
        let waiters = lock.withLock { flights.removeValue(forKey: key)?.waiters.values.map { $0 } ?? [] }
        for waiter in waiters { waiter(value) }
    }

    private func expire(_ key: String, waiter id: Int) {
        let waiter = lock.withLock { flights[key]?.waiters.removeValue(forKey: id) }
        waiter?(nil)
    }
}
