import Foundation
import PushAttach
import TestSupport
import Testing

/// One file, one answer: the same bytes judged by `verify --json`, `prepare` of their URLs,
/// `prepare` of the files as INPUTs, `prepare` of their folder, `serve` and the library get the
/// same outcome class (prepared, rejected, failed) and the same UNErrorCode, and the ones the
/// planner is meant to give: bytes that are no media are 101 whatever their name, a damaged file
/// of a known format 105, a file over its kind's cap 102 (rejected, not failed: the bytes came).
@Suite("one answer for a file in every face", .serialized, .ownThread, .tags(.slow), .notInFastTier)
struct OneAnswerCLITests {
    /// The outcome every face is reduced to.
    struct Answer: Hashable, CustomStringConvertible {
        var outcome: String
        var code: Int?
        var description: String { "\(outcome) \(code.map(String.init) ?? "-")" }
    }

    /// The files, written into `dir`, each with the answer it must get.
    static func cases(in dir: URL) throws -> [(URL, Answer)] {
        let images = Corpus.testImages
        let png = try Data(contentsOf: images.appendingPathComponent("opaque-300x200.png"))
        let wavHeader =
            Data("RIFF".utf8) + le32(5_500_036) + Data("WAVEfmt ".utf8) + le32(16)
            + Data([1, 0, 1, 0]) + le32(44_100) + le32(88_200) + Data([2, 0, 16, 0]) + Data("data".utf8) + le32(5_500_000)
        let mp4Header =
            Data([0, 0, 0, 0x18]) + Data("ftypisom".utf8) + Data([0, 0, 2, 0]) + Data("isommp41".utf8)
            + Data([0, 0, 0, 1]) + Data("mdat".utf8) + be64(55_000_016)
        let rejected101 = Answer(outcome: "rejected", code: 101)
        let files: [(String, Data, Answer)] = [
            ("not-really.jpg", Data("<!DOCTYPE html><html><body>404</body></html>\n".utf8), rejected101),
            ("notes.png", Data("api_key=do-not-leak\npassword=hunter2\n".utf8), rejected101),
            ("empty.jpg", Data(), rejected101),
            ("cut.jpg", try Data(contentsOf: images.appendingPathComponent("truncated.jpg")), Answer(outcome: "rejected", code: 105)),
            ("big.png", Padding.png(png, adding: 10_500_000), Answer(outcome: "prepared", code: nil)),
            ("long.wav", wavHeader + Data(count: 5_500_000), Answer(outcome: "rejected", code: 102)),
            ("long.mp4", mp4Header + Data(count: 55_000_000), Answer(outcome: "rejected", code: 102)),
            ("lossy.webp", try Data(contentsOf: images.appendingPathComponent("lossy-320x240.webp")), Answer(outcome: "prepared", code: nil)),
            ("photo.heic", try Data(contentsOf: images.appendingPathComponent("formats/heif/heic-8bit-orient6.heic")), Answer(outcome: "prepared", code: nil)),
        ]
        return try files.map { name, data, answer in
            let url = dir.appendingPathComponent(name)
            try data.write(to: url)
            return (url, answer)
        }
    }

    @Test func everyFaceGivesTheSameClassAndCode() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("one-answer-\(UUID().uuidString)")
        let dir = root.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let cases = try Self.cases(in: dir)
        let names = cases.map { $0.0.lastPathComponent }
        var answers: [String: [String: Answer]] = [:]  // face -> file name -> answer
        func json(_ line: Substring) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        func entryAnswer(_ entry: [String: Any]) -> Answer {
            Answer(outcome: entry["status"] as? String ?? "?", code: entry["error_code"] as? Int)
        }

        // verify --json
        let verify = try ProcessRunner.run("pushattach", ["verify", "--json"] + cases.map(\.0.path))
        for line in verify.stdout.split(separator: "\n") {
            let report = try json(line)
            let verdict = report["verdict"] as? String ?? "?"
            let outcome = verdict == "accepted" || verdict == "transcode" ? "prepared" : verdict
            let name = URL(fileURLWithPath: report["path"] as? String ?? "").lastPathComponent
            answers["verify", default: [:]][name] = Answer(outcome: outcome, code: report["error_code"] as? Int)
        }

        // prepare of the URLs, from a loopback origin
        let origin = try TestHTTPServer()
        defer { origin.stop() }
        var nameOfURL: [String: String] = [:]
        for (file, _) in cases {
            let data = try Data(contentsOf: file)
            let path = "/media/\(file.lastPathComponent)"
            origin.route(path) { _ in .bytes(data, contentType: "application/octet-stream") }
            nameOfURL[origin.url(path)] = file.lastPathComponent
        }
        let list = root.appendingPathComponent("urls.txt")
        try Data(nameOfURL.keys.sorted().joined(separator: "\n").utf8).write(to: list)
        let byURL = try ProcessRunner.run(
            "pushattach",
            ["prepare", list.path, "-o", root.appendingPathComponent("by-url").path, "--json", "-q", "--allow-private-networks"])
        for line in byURL.stdout.split(separator: "\n") {
            let entry = try json(line)
            if let name = nameOfURL[entry["input"] as? String ?? ""] { answers["prepare URL", default: [:]][name] = entryAnswer(entry) }
        }

        // prepare of the files as INPUTs, and of their folder
        for (face, inputs) in [("prepare INPUT", cases.map(\.0.path)), ("prepare folder", [dir.path])] {
            let out = root.appendingPathComponent(face.replacingOccurrences(of: " ", with: "-"))
            let run = try ProcessRunner.run("pushattach", ["prepare"] + inputs + ["-o", out.path, "--json", "-q"])
            for line in run.stdout.split(separator: "\n") {
                let entry = try json(line)
                let name = URL(string: entry["input"] as? String ?? "")?.lastPathComponent ?? "?"
                answers[face, default: [:]][name] = entryAnswer(entry)
            }
        }

        // serve: each URL through a signed link
        let cache = root.appendingPathComponent("cache")
        let serve = try ServeCLITests.ServeProcess(cache: cache)
        defer {
            serve.terminate()
            _ = serve.wait()
        }
        for (url, name) in nameOfURL {
            let answer = try TestHTTPClient.get(port: serve.port, path: ServeCLITests.link(url), timeout: .seconds(300))
            let problem = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            let outcome = answer.status == 200 ? "prepared" : answer.status == 422 ? "rejected" : "failed \(answer.status)"
            answers["serve", default: [:]][name] = Answer(outcome: outcome, code: problem?["errorCode"] as? Int)
        }

        // the library, on the files
        var configuration = AttachmentPreparer.Configuration()
        configuration.fetch.allowPrivateNetworks = true
        configuration.callDeadline = .seconds(900)  // the whole test run shares two cores
        let preparer = AttachmentPreparer(configuration: configuration)
        for (file, _) in cases {
            do throws(AttachmentError) {
                _ = try await preparer.prepare(contentsOf: file, into: root.appendingPathComponent("library"))
                answers["library", default: [:]][file.lastPathComponent] = Answer(outcome: "prepared", code: nil)
            } catch {
                let outcome = error.refusal != nil ? "rejected" : "failed"
                answers["library", default: [:]][file.lastPathComponent] = Answer(outcome: outcome, code: error.errorCode?.rawValue)
            }
        }
        await preparer.shutdown()

        // Every face answered every file, with the one answer it must have.
        let faces = ["verify", "prepare URL", "prepare INPUT", "prepare folder", "serve", "library"]
        var table = ""
        for (file, expected) in cases {
            let name = file.lastPathComponent
            var row = "\(name):"
            for face in faces {
                let got = answers[face]?[name]
                row += " \(face)=\(got.map(\.description) ?? "none")"
                #expect(got == expected, "\(face) on \(name): \(got.map(\.description) ?? "no answer"), expected \(expected)")
            }
            table += row + "\n"
        }
        print(table)
        #expect(answers.keys.count == faces.count && names.count == cases.count)
    }

    /// A text file given as an INPUT is refused whole, and none of its lines reaches any output.
    @Test func aTextFileGivenAsInputIsNeverCopied() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("no-copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let secrets = root.appendingPathComponent("secrets.env")
        try Data("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG\nDB_PASSWORD=correct horse battery\n".utf8).write(to: secrets)
        let out = root.appendingPathComponent("out")
        let run = try ProcessRunner.run("pushattach", ["prepare", secrets.path, "-o", out.path, "--json", "--report"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("neither media nor a list"), "\(run.stderr)")
        var outputs = run.stdout + run.stderr
        for file in (try? FileManager.default.subpathsOfDirectory(atPath: out.path)) ?? [] {
            outputs += (try? String(contentsOf: out.appendingPathComponent(file), encoding: .utf8)) ?? ""
        }
        for secret in ["wJalrXUtnFEMI", "correct horse", "AWS_SECRET", "DB_PASSWORD"] {
            #expect(!outputs.contains(secret), "\(secret) was copied into an output")
        }
    }

    static func le32(_ value: Int) -> Data {
        Data([UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8((value >> 24) & 0xFF)])
    }

    static func be64(_ value: Int) -> Data { Data((0..<8).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) }) }
}
