import Foundation
import PushAttach
import TestSupport
import Testing

/// `Configuration.callDeadline` through `import PushAttach` alone: one bound over the whole
/// call, retries and their waits included; past it a timeout that keeps the origin's advice.
@Suite(.ownThread) struct CallDeadlineTests {
    private func busyOrigin(retryAfter seconds: Int) throws -> TestHTTPServer {
        let server = try TestHTTPServer()
        server.route("/busy.jpg") { _ in
            TestHTTPServer.Response(
                status: 503, headers: [("Retry-After", "\(seconds)")], body: .bytes(Data("busy\n".utf8)))
        }
        return server
    }

    private func configuration(deadline: Duration) -> AttachmentPreparer.Configuration {
        var configuration = AttachmentPreparer.Configuration.default
        configuration.fetch.allowPrivateNetworks = true  // the loopback test server
        configuration.callDeadline = deadline
        return configuration
    }

    /// A busy origin: 503 with `Retry-After: 3` under a 4 s deadline. The first retry (after
    /// 3 s) fits, the second would not: the call ends then, a timeout with the 3 s advice, which
    /// `AttachmentProblem` turns into a 5xx with `Retry-After: 3`.
    @Test func aBusyOriginEndsTheCallAtItsDeadlineWithTheOriginsAdvice() async throws {
        let origin = try busyOrigin(retryAfter: 3)
        defer { origin.stop() }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = AttachmentPreparer(configuration: configuration(deadline: .seconds(4)))
        let start = ContinuousClock.now
        do {
            _ = try await preparer.prepare(origin.url("/busy.jpg"), into: folder.url)
            Issue.record("a 503 was prepared")
        } catch {
            print("callDeadline 4 s, 503 Retry-After 3: the call returned after \(ContinuousClock.now - start), "
                + "\(origin.hits("/busy.jpg")) request(s)")
            guard case .fetch(.timedOut)? = error.underlying else {
                Issue.record("expected a timeout, got \(error)")
                return
            }
            #expect(error.kind == .downloadFailed)
            #expect(error.retryAfter == .seconds(3))
            #expect(error.isRetryable)
            let problem = AttachmentProblem(error)
            #expect((500...599).contains(problem.status))
            #expect(problem.retryAfter == .seconds(3))
            #expect(problem.retryAfterSeconds == 3)
        }
        #expect(origin.hits("/busy.jpg") >= 1)
    }

    /// A wait that would end past the deadline is not waited for: one request, and the call
    /// ends with the advice at once.
    @Test func aRetryPastTheDeadlineIsNotWaitedFor() async throws {
        let origin = try busyOrigin(retryAfter: 10)
        defer { origin.stop() }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = AttachmentPreparer(configuration: configuration(deadline: .seconds(4)))
        do {
            _ = try await preparer.prepare(origin.url("/busy.jpg"), into: folder.url)
            Issue.record("a 503 was prepared")
        } catch {
            guard case .fetch(.timedOut)? = error.underlying else {
                Issue.record("expected a timeout, got \(error)")
                return
            }
            #expect(error.retryAfter == .seconds(10))
            #expect(AttachmentProblem(error).status == 504)
        }
        #expect(origin.hits("/busy.jpg") == 1)
    }

    @Test func theDefaultBoundsACallAt25Seconds() {
        #expect(AttachmentPreparer.Configuration.default.callDeadline == .seconds(25))
    }
}
