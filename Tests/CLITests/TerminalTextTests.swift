import Foundation
import TestSupport
import Testing

/// End-to-end: bytes a server or a file controls reach `prepare`'s and `verify`'s output
/// escaped, never as control sequences a terminal would act on or as a forged line.
@Suite("pushattach terminal text", .tags(.slow), .notInFastTier)
struct TerminalTextTests {
    /// A PNG whose first "chunk type" is ESC [ 2 J (clear the screen).
    static let screenClearingPNG: Data = {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        bytes += [0x1B, 0x5B, 0x32, 0x4A] + [UInt8](repeating: 0, count: 21)
        return Data(bytes)
    }()

    static let jpeg: Data = {
        (try? Data(contentsOf: Corpus.testImages.appendingPathComponent("small-320x240.jpg"))) ?? Data()
    }()

    /// A fresh folder under the system's temporary one, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("terminal-text-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Output a terminal would act on: C0 controls other than the newline, DEL, C1, and the
    /// bidi and zero-width characters.
    static func controlCharacters(in text: String) -> [String] {
        text.unicodeScalars.filter { scalar in
            scalar != "\n"
                && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                    || [
                        0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202B, 0x202C, 0x202D,
                        0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x2060, 0xFEFF, 0x061C,
                    ].contains(scalar.value))
        }.map { String(format: "U+%04X", $0.value) }
    }

    func prepare(_ input: String, in dir: URL, extra: [String] = []) throws -> ProcessRunner.Result {
        let list = dir.appendingPathComponent("input-\(UUID().uuidString).txt")
        try Data(input.utf8).write(to: list)
        return try ProcessRunner.run(
            "pushattach",
            [
                "prepare", list.path, "--container", dir.appendingPathComponent("out").path, "--allow-private-networks",
                "--retries", "0",
            ] + extra)
    }

    @Test func chunkTypeAndLocationFromTheServerAreShownEscaped() throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/a.png") { _ in .bytes(Self.screenClearingPNG, contentType: nil) }
        server.route("/loc") { _ in .redirect(to: "http://x\u{1B}[31mRED/") }
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }

        let result = try prepare("\(server.url("/a.png"))\n\(server.url("/loc"))\n", in: dir)
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(Self.controlCharacters(in: result.stdout + result.stderr).isEmpty, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(#"first chunk is '\u{1B}[2J' of 13 bytes"#), "stderr: \(result.stderr)")
        #expect(result.stderr.contains(#"an unusable Location "http://x\u{1B}[31mRED/""#), "stderr: \(result.stderr)")
    }

    @Test func strictClaimMismatchesAreShownEscapedAndForgeNoLine() throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/claimed.jpg") { _ in .bytes(Self.jpeg, contentType: "image/jpeg") }
        server.route("/typed.jpg") { _ in .bytes(Self.jpeg, contentType: "image/gif; x=\u{1B}[2J") }
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(!Self.jpeg.isEmpty)

        // A media_type holding a newline and a forged status line; a Content-Type holding ESC.
        let lines = [
            #"{"url": "\#(server.url("/claimed.jpg"))", "media_type": "image/gif;\n[ok] forged line"}"#,
            #"{"url": "\#(server.url("/typed.jpg"))"}"#,
        ]
        let result = try prepare(lines.joined(separator: "\n") + "\n", in: dir, extra: ["--strict"])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(Self.controlCharacters(in: result.stdout + result.stderr).isEmpty, "stderr: \(result.stderr)")
        #expect(!result.stderr.split(separator: "\n").contains { $0.hasPrefix("[ok]") }, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(#"media_type "image/gif;\n[ok] forged line" says GIF"#), "\(result.stderr)")
        #expect(result.stderr.contains(#"Content-Type "image/gif; x=\u{1B}[2J" says GIF"#), "\(result.stderr)")
    }

    @Test func jsonOutputEscapesLineSeparatorsAndStaysParseable() throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/a.png") { _ in .bytes(Self.screenClearingPNG, contentType: nil) }
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }

        // An input the URL check refuses, carrying U+2028, U+202E and ESC into the entry's reason.
        let lines = [
            #"{"url": "\#(server.url("/a.png"))", "id": "line\u2028separator"}"#,
            #"{"url": "notaurl\u2028\u202E\u001b[2J"}"#,
        ]
        let result = try prepare(lines.joined(separator: "\n") + "\n", in: dir, extra: ["--json"])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(Self.controlCharacters(in: result.stdout + result.stderr).isEmpty, "stdout: \(result.stdout)")
        #expect(result.stdout.contains(#"line\u2028separator"#), "stdout: \(result.stdout)")
        let entries = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(entries.count == 2)
        // Lossless: the JSON still decodes to the text as given.
        #expect(entries.contains { $0["id"] as? String == "line\u{2028}separator" })
        // The reason is for people: the refused URL is quoted in its escaped, visible form.
        #expect(entries.contains { ($0["reason"] as? String)?.contains(#"notaurl\u{2028}\u{202E}\u{1B}[2J"#) == true })

        let manifest = try String(
            contentsOf: dir.appendingPathComponent("out/manifest.json"), encoding: .utf8)
        #expect(Self.controlCharacters(in: manifest).isEmpty)
        #expect(manifest.contains(#"line\u2028separator"#))
    }

    @Test func verifyShowsAHostileFileNameAndChunkTypeEscaped() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = "shot\u{1B}[2J\n[ok] \u{202E}gnp.png"
        try Self.screenClearingPNG.write(to: dir.appendingPathComponent(name))

        let human = try ProcessRunner.run("pushattach", ["verify", dir.path])
        #expect(human.status == 1, "stderr: \(human.stderr)")
        #expect(Self.controlCharacters(in: human.stdout + human.stderr).isEmpty, "stdout: \(human.stdout)")
        #expect(human.stdout.contains(#"shot\u{1B}[2J\n[ok] \u{202E}gnp.png"#), "stdout: \(human.stdout)")
        #expect(human.stdout.contains(#"first chunk is '\u{1B}[2J'"#), "stdout: \(human.stdout)")
        #expect(!human.stdout.split(separator: "\n").contains { $0.hasPrefix("[ok]") })

        let json = try ProcessRunner.run("pushattach", ["verify", "--json", dir.path])
        #expect(Self.controlCharacters(in: json.stdout).isEmpty, "stdout: \(json.stdout)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["path"] as? String)?.hasSuffix(name) == true)
    }
}
