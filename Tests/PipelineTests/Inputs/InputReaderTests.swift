import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// Reads every event of `inputs`.
func events(_ inputs: [String], stdin: FileHandle = .nullDevice) -> [InputEvent] {
    Array(InputReader(inputs: inputs, standardInput: stdin))
}

extension [InputEvent] {
    var items: [InputItem] { compactMap { if case .item(let item) = $0 { item } else { nil } } }
    var problems: [InputProblem] { compactMap { if case .problem(let problem) = $0 { problem } else { nil } } }
    /// Pushes that name no media.
    var withoutMedia: [InputProblem] { compactMap { if case .noMedia(let push) = $0 { push } else { nil } } }
}

@Suite("Inputs: text lists and JSON lines", .tags(.slow), .notInFastTier)
struct InputListTests {
    @Test func textListWithCommentsBlanksAndBadLines() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let list = try dir.file(
            "list.txt",
            """
            # header comment

            https://cdn.example/a.jpg
              https://cdn.example/b.webp   image/webp   # trailing comment
            https://cdn.example/c.png#frag
            htp:/x
            https://cdn.example/d.gif gif extra
            \t
            www.example.com/e.jpg
            https://cdn.example/last.mp3 audio
            """)
        let result = events([list.path])
        #expect(
            result.items.map(\.url) == [
                "https://cdn.example/a.jpg", "https://cdn.example/b.webp", "https://cdn.example/c.png#frag",
                "https://cdn.example/last.mp3",
            ])
        #expect(result.items.map(\.line) == [3, 4, 5, 10])
        #expect(result.items.map(\.mediaType) == [nil, "image/webp", nil, "audio"])
        #expect(result.items.allSatisfy { $0.source == list.path && $0.convention == nil })
        #expect(result.problems.map(\.line) == [6, 7, 9])
        #expect(result.problems[0].description == "\(list.path):6: not a URL: 'htp:/x' (expected http:// or https://)")
        #expect(result.problems[1].message.contains("fields"))
    }

    @Test func crlfBOMAndNoFinalNewline() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let list = try dir.file(
            "win.txt", bytes: [0xEF, 0xBB, 0xBF] + Array("https://x.test/a.jpg\r\nhttps://x.test/b.jpg".utf8))
        let result = events([list.path])
        #expect(result.items.map(\.url) == ["https://x.test/a.jpg", "https://x.test/b.jpg"])
        #expect(result.problems.isEmpty)
    }

    @Test func jsonLines() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let list = try dir.file(
            "items.jsonl",
            """
            {"url": "https://x.test/1.jpg", "media_type": "public.jpeg", "id": "one"}
            {"url": "https://x.test/2.png", "id": 42}
            {"url": 7}
            {"nope": true}
            {"data": {"attachment": "https://x.test/3.gif", "media_type": "gif"}}
            {broken
            https://x.test/4.jpg
            """)
        let result = events([list.path])
        #expect(
            result.items.map(\.url) == [
                "https://x.test/1.jpg", "https://x.test/2.png", "https://x.test/3.gif", "https://x.test/4.jpg",
            ])
        #expect(result.items.map(\.id) == ["one", "42", nil, nil])
        #expect(result.items.map(\.mediaType) == ["public.jpeg", nil, "gif", nil])
        #expect(result.items.map(\.convention) == [nil, nil, "fcm", nil])
        #expect(result.items.map(\.line) == [1, 2, 5, 7])
        #expect(result.problems.map(\.line) == [3, 4, 6])
        #expect(result.problems[2].message.hasPrefix("not valid JSON"))
    }

    @Test func standardInputThroughAPipe() throws {
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data("https://x.test/a.jpg\n# c\nftp://x.test/b.jpg\n".utf8))
        try pipe.fileHandleForWriting.close()
        let result = events(["-"], stdin: pipe.fileHandleForReading)
        #expect(result.items.map(\.url) == ["https://x.test/a.jpg"])
        #expect(result.items.first?.source == "-")
        #expect(
            result.problems.map(\.description) == [
                "-:3: not a URL: 'ftp://x.test/b.jpg' (expected http:// or https://)"
            ])
    }

    @Test func longListStreamsThroughSmallBuffer() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let text = (1...10_000).map { "https://x.test/\($0).jpg" }.joined(separator: "\n")
        let list = try dir.file("big.txt", text)
        var count = 0
        var last: InputItem?
        for event in InputReader(inputs: [list.path]) {
            if case .item(let item) = event { count += 1; last = item }
        }
        #expect(count == 10_000)
        #expect(last?.line == 10_000)
        #expect(last?.url == "https://x.test/10000.jpg")
    }

    @Test func lineReaderHandlesChunkBoundariesAndLongLines() throws {
        let pipe = Pipe()
        let long = String(repeating: "x", count: 100)
        pipe.fileHandleForWriting.write(Data("ab\ncd\n\(long)\nef".utf8))
        try pipe.fileHandleForWriting.close()
        let reader = LineReader(
            descriptor: pipe.fileHandleForReading.fileDescriptor, name: "-", ownsDescriptor: false,
            chunkSize: 3, maxLineBytes: 10)
        var lines: [LineReader.Line] = []
        while let line = try reader.nextLine() { lines.append(line) }
        #expect(
            lines == [.text(Array("ab".utf8)), .text(Array("cd".utf8)), .tooLong(bytes: 100), .text(Array("ef".utf8))])
    }

    @Test func urlRules() {
        #expect(URLCheck.problem("https://x.test/a.jpg") == nil)
        #expect(URLCheck.problem("HTTP://X.TEST/a.jpg") == nil)
        #expect(URLCheck.problem("file:///etc/passwd") != nil)
        #expect(URLCheck.problem("https:///nohost") != nil)
        #expect(URLCheck.problem("https://x.test/a\u{7}b") != nil)
        #expect(URLCheck.problem("https://x.test/" + String(repeating: "a", count: 9000))?.contains("too long") == true)
        // A line it refuses is quoted without its password.
        let refused = URLCheck.problem("https://user:hunter2@x.test/a b.jpg") ?? ""
        #expect(refused.contains("x.test") && !refused.contains("hunter2"), "\(refused)")
    }

    @Test func missingFileAndFolderAreProblemsAndTheRestGoesOn() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let good = try dir.file("good.txt", "https://x.test/a.jpg\n")
        let result = events([dir.url.appendingPathComponent("missing.txt").path, dir.url.path, good.path])
        #expect(result.problems.count == 2)
        #expect(result.problems[0].message.contains("cannot open"))
        #expect(result.problems[1].message.contains("folder"))
        #expect(result.items.map(\.url) == ["https://x.test/a.jpg"])
    }
}

/// A local media file given as INPUT is one `file://` item, recognised by `Sniffer.identify`.
@Suite("Inputs: local media files", .tags(.slow), .notInFastTier)
struct MediaInputTests {
    @Test(arguments: [
        "small-320x240.jpg", "opaque-300x200.png", "animated-120x90.gif", "lossy-320x240.webp", "tone-1s.wav",
        "truncated.jpg",
    ])
    func mediaFileIsOneFileItem(_ name: String) throws {
        let path = Corpus.testImages.appendingPathComponent(name).path
        let result = events([path])
        #expect(result.problems.isEmpty)
        #expect(result.items.map(\.url) == [URL(fileURLWithPath: path).standardizedFileURL.absoluteString])
        #expect(result.items.first?.convention == "file")
    }

    /// An SVG and a file named as media are files; binary junk under no media name is neither
    /// media nor a list; a list is a list.
    @Test func svgAndMediaNamesAreFilesJunkIsNeitherAListIsAList() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let svg = try dir.file("drawing.svg", #"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>"#)
        let junk = try dir.file("junk.bin", bytes: [0x01, 0x02, 0x00, 0xFE, 0x80, 0x81, 0x0A, 0x41])
        let named = try dir.file("junk.jpg", bytes: [0x01, 0x02, 0x00, 0xFE, 0x80, 0x81, 0x0A, 0x41])
        let list = try dir.file("list.txt", "https://cdn.example/a.jpg\n")
        #expect(events([svg.path]).items.map(\.convention) == ["file"])
        #expect(events([junk.path]).items.isEmpty && events([junk.path]).problems.count == 1)
        #expect(events([named.path]).items.map(\.convention) == ["file"])
        #expect(events([list.path]).items.map(\.url) == ["https://cdn.example/a.jpg"])
        #expect(MediaInput.looksLikeMedia(Array("GET / HTTP/1.1\n".utf8)) == false)
        #expect(MediaInput.looksLikeMedia([0xFF, 0xD8, 0xFF, 0xE0]) == true)
    }
}
