import Fetch
import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// With private networks refused, every non-public address form is a `failed` entry naming
/// the address and the rule, directly and through a redirect from an allowed first hop.
@Suite("prepare: SSRF refusals are failed entries", .ownThread, .tags(.slow), .notInFastTier)
struct PrepareSSRFTests {
    static let targets = [
        "http://127.0.0.1:9/a.jpg", "http://[::1]:9/a.jpg", "http://0.0.0.0:9/a.jpg",
        "http://[::ffff:127.0.0.1]:9/a.jpg", "http://2130706433:9/a.jpg", "http://169.254.169.254/latest/meta-data",
        "http://localhost:9/a.jpg", "http://10.0.0.1:9/a.jpg", "http://100.64.0.1:9/a.jpg",
    ]

    @Test func privateAddressesAreRefusedDirectlyAndThroughARedirect() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/ok.jpg")
        let redirects = Self.targets.map { target in
            f.server.url(
                "/redirect-to?url=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        }
        var options = try f.options(Self.targets + redirects + [f.server.url("/ok.jpg")])
        options.fetch.allowPrivateNetworks = false
        // The test server's own address is the one private address let through (the first hop).
        options.fetch.allowedPrivateAddressesForTesting = ["127.0.0.1:\(f.server.port)"]
        let (summary, entries, _) = try await f.run(options)

        #expect(entries[f.server.url("/ok.jpg")]?.status == .prepared)
        for url in Self.targets + redirects {
            let entry = try #require(entries[url], "no entry for \(url)")
            #expect(entry.status == .failed, "\(url)")
            let reason = entry.reason ?? ""
            #expect(reason.contains("refused to connect to"), "\(url): \(reason)")
            #expect(reason.contains("private networks are not allowed"), "\(url): \(reason)")
        }
        // The rule is named: loopback for the loopback forms, link-local for the metadata address.
        let metadata = try #require(entries["http://169.254.169.254/latest/meta-data"]?.reason)
        #expect(metadata.contains("169.254.169.254") && metadata.contains("link-local"))
        let mapped = try #require(entries["http://[::ffff:127.0.0.1]:9/a.jpg"]?.reason)
        #expect(mapped.contains("loopback"))
        let decimal = try #require(entries["http://2130706433:9/a.jpg"]?.reason)
        #expect(decimal.contains("127.0.0.1") && decimal.contains("loopback"))
        #expect(summary.failed == 2 * Self.targets.count && summary.prepared == 1)
    }
}
