import Foundation
import PushAttach
import TestSupport
import Testing

/// One `AttachmentPolicy` for every face: the preparer's `policy` is the engine's
/// `limits.policy` (one storage, no copy that silently wins), and a verifier given the same
/// value says what the preparer does.
@Suite("one policy", .ownThread)
struct PolicyTests {
    @Test func theConfigurationsPolicyIsTheEnginesPolicy() {
        var configuration = AttachmentPreparer.Configuration()
        configuration.limits.policy.strict = true
        #expect(configuration.policy.strict)
        configuration.policy.pixelBudget = 1_000
        #expect(configuration.limits.policy.pixelBudget == 1_000)
        #expect(configuration.policy == configuration.limits.policy)
    }

    /// WebP bytes named `.png`: lenient, the bytes win with a warning; strict, the mismatch
    /// is a refusal. Set on `limits.policy` (which a copy on the configuration used to
    /// override), the strictness reaches the preparer; the verifier with the same policy agrees.
    @Test func aStrictPolicyReachesPrepareAndVerifyAlike() async throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let bytes = try Corpus.data(Fixtures.webp)
        var policy = AttachmentPolicy()
        policy.strict = true
        let strict = Fixtures.preparer { $0.limits.policy = policy }
        let refused = await #expect(throws: AttachmentError.self) {
            try await strict.prepare(bytes, filename: "dog.png", into: folder.url)
        }
        #expect(refused?.kind == .rejected)
        let verdict = await AttachmentVerifier(policy: policy).verify(data: bytes, fileExtension: "png")
        #expect(verdict.verdict == .rejected, "\(verdict)")
        #expect(verdict.errorCode == refused?.errorCode, "\(verdict) vs \(String(describing: refused))")

        let lenient = await AttachmentVerifier(policy: AttachmentPolicy()).verify(data: bytes, fileExtension: "png")
        #expect(lenient.verdict == .transcode)
    }
}
