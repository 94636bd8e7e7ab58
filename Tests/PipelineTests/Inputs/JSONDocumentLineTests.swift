import Foundation
import TestSupport
import Testing

@testable import PushAttachBatch

/// The lines the input reader gives to what it reads from a JSON document: every problem names
/// its line, and every push its own.
@Suite("Inputs: the lines of a JSON document", .tags(.slow), .notInFastTier)
struct JSONDocumentLineTests {
    /// Every problem with a JSON document names a line: an element's own line, the line the
    /// parser stopped on, the last line of a document cut short; items, the line of their URL
    /// within their own element.
    @Test func problemsInAJSONDocumentNameTheirLine() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let array = try dir.file(
            "pushes.json",
            """
            [
              {"data": {"attachment": "https://x.test/1.jpg"}},
              42,
              {
                "aps": {"alert": "no media"}
              },
              {"media_url": "https://x.test/1.jpg"}
            ]
            """)
        let invalid = try dir.file("invalid.json", "{\n  \"aps\": {},\n  \"media_url\": ,\n  \"x\": 1\n}\n")
        let cut = try dir.file("cut.json", "{\n  \"aps\": {},\n  \"media_url\": \"https://x.test/a.jpg\"\n")
        let single = try dir.file("single.json", "\n\n{\n  \"aps\": {\"alert\": \"no media\"}\n}\n")
        let result = events([array.path, invalid.path, cut.path, single.path])
        #expect(result.items.map(\.url) == ["https://x.test/1.jpg", "https://x.test/1.jpg"])
        #expect(result.items.map(\.line) == [2, 7], "the second push's own line, not the first's")
        let problems = result.problems.map { "\(URL(fileURLWithPath: $0.source).lastPathComponent):\($0.line)" }
        #expect(problems == ["pushes.json:3", "invalid.json:3", "cut.json:3"])
        #expect(result.problems.first?.message == "element 2 of the JSON array is not an object")
        // Pushes with no media (text-only) are not problems: counted apart, with their place.
        let withoutMedia = result.withoutMedia.map { "\(URL(fileURLWithPath: $0.source).lastPathComponent):\($0.line)" }
        #expect(withoutMedia == ["pushes.json:4", "single.json:3"])
        #expect(result.withoutMedia.first?.message == "element 3 of the JSON array: no media")
        #expect(result.problems[0].description.hasSuffix("pushes.json:3: element 2 of the JSON array is not an object"))
    }

    @Test(arguments: [
        ("[1, {\"a\": [1, \"],\"]}, \"x\\\"\", [[]] ]", [1, 4, 22, 29]),
        ("\u{FEFF}  {\"a\": 1}", [5]),
        ("[]", []),
        ("[\n]", []),
    ])
    func valueStartsOfADocument(text: String, starts: [Int]) {
        #expect(LineLocator(Array(text.utf8)).valueStarts() == starts)
    }
}
