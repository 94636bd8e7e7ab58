import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// "top reasons" groups: what went wrong, without what varies per item.
@Suite struct ReasonKeyTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/a.jpg: HTTP 404 Not Found", "HTTP 404 Not Found"),
        ("HTTP 404 from http://127.0.0.1:8080/a.jpg", "HTTP 404"),
        ("element 2 of the JSON array: no attachment URL found (looked for url, image)", "no attachment URL found"),
        ("cannot spool the body of http://h/a.jpg: No space left on device", "cannot spool the body of …"),
        ("line 7: not a URL", "not a URL"),
        ("the bytes are text, not media; the URL says jpg", "the bytes are text, not media"),
        ("refused to connect to 127.0.0.1 (loopback): private networks are not allowed", "refused to connect to 127.0.0.1"),
    ])
    func groupsByWhatWentWrong(reason: String, key: String) {
        #expect(PrepareSummary.reasonKey(reason) == key)
    }
}
