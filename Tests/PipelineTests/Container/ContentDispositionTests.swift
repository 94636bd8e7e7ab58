import Testing

@testable import Pipeline

@Suite("Content-Disposition filenames")
struct ContentDispositionTests {
    @Test(arguments: [
        (#"attachment; filename="../../etc/passwd""#, "../../etc/passwd"),
        ("attachment; filename=cat.jpg", "cat.jpg"),
        (#"inline; filename="a \"quoted\" name.png"; size=10"#, #"a "quoted" name.png"#),
        (#"attachment; filename="fallback.jpg"; filename*=UTF-8''caf%C3%A9.jpg"#, "café.jpg"),
        ("attachment; FILENAME*=iso-8859-1'en'%E9t%E9.gif", "été.gif"),
    ])
    func parses(_ header: String, _ expected: String) {
        #expect(ContentDisposition.filename(from: header) == expected)
    }

    @Test(arguments: [
        "attachment", "inline; size=3", #"attachment; filename="""#, "attachment; filename*=UTF-8''%FF%FE",
    ])
    func noFilename(_ header: String) {
        #expect(ContentDisposition.filename(from: header) == nil)
    }

    @Test func feedsTheSanitiser() {
        let suggested = ContentDisposition.filename(from: #"attachment; filename="../../etc/passwd""#)
        let name = AttachmentName(url: "https://x.test/a.jpg", suggestedFilename: suggested, fileExtension: "jpg")
        #expect(name.baseName == "passwd")
    }
}
