import Foundation
import TestSupport
import Testing

/// `verify` names the audio, video and image formats iOS refuses: FLAC, Ogg and WebM are
/// rejected by name, not "not media" (nor skipped in a folder); a folder of them does not exit
/// 0, and `--json` lists every file.
@Suite(.tags(.slow), .notInFastTier) struct VerifyRefusedFormatsCLITests {
    /// The smallest files that carry each format's signature.
    static let samples: [(name: String, bytes: [UInt8], format: String, convertTo: String)] = [
        ("a.flac", Array("fLaC".utf8) + [0x00, 0x00, 0x00, 0x22] + Array(repeating: 0, count: 60), "flac", "M4A or MP3"),
        ("a.ogg", Array("OggS".utf8) + Array(repeating: 0, count: 60), "ogg", "M4A or MP3"),
        (
            "a.webm",
            [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84] + Array("webm".utf8)
                + Array(repeating: 0, count: 60), "webm", "MP4 (H.264)"
        ),
        (
            "a.mkv",
            [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x88] + Array("matroska".utf8)
                + Array(repeating: 0, count: 60), "mkv", "MP4 (H.264)"
        ),
        (
            "a.jp2", [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A] + Array(repeating: 0, count: 60),
            "jp2", "JPEG or PNG"
        ),
    ]

    static func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("refused-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func eachRefusedFormatIsNamedWithWhatToConvertItTo() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        for sample in Self.samples { try Data(sample.bytes).write(to: dir.appendingPathComponent(sample.name)) }
        try Data("a note\n".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        let result = try ProcessRunner.run("pushattach", ["verify", "--json", dir.path])
        #expect(result.status == 1, "nothing in the folder is accepted: \(result.stderr)")
        let entries = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        for sample in Self.samples {
            let entry = try #require(entries.first { ($0["path"] as? String)?.hasSuffix("/" + sample.name) == true })
            #expect(entry["format"] as? String == sample.format, "\(sample.name)")
            #expect(entry["verdict"] as? String == "rejected")
            #expect(entry["error_code"] as? Int == 101)
            #expect((entry["reason"] as? String)?.contains("convert it to \(sample.convertTo)") == true, "\(entry)")
        }
        let skipped = try #require(entries.first { ($0["path"] as? String)?.hasSuffix("/notes.txt") == true })
        #expect(skipped["verdict"] as? String == "skipped")
    }

    /// Movies by their codecs: a QuickTime movie's refusal names them and says whether a remux is
    /// enough; an MP4 whose video iOS does not reliably play is accepted by type, with a warning
    /// naming the codec and what to re-encode to, and `prepare` passes it through with the same
    /// warning (one plan).
    @Test func moviesAreJudgedByTheirCodecs() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files: [(String, [UInt8])] = [
            ("camera.mov", MovieFile.bytes(brand: "qt  ", tracks: [("vide", "avc1"), ("soun", "mp4a")])),
            ("edit.mov", MovieFile.bytes(brand: "qt  ", tracks: [("vide", "apch"), ("soun", "lpcm")])),
            ("web.mp4", MovieFile.bytes(brand: "isom", tracks: [("vide", "vp09"), ("soun", "mp4a")])),
        ]
        for (name, bytes) in files { try Data(bytes).write(to: dir.appendingPathComponent(name)) }
        let result = try ProcessRunner.run("pushattach", ["verify", "--json", dir.path])
        let entries = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        func entry(_ name: String) throws -> [String: Any] {
            try #require(entries.first { ($0["path"] as? String)?.hasSuffix("/" + name) == true }, "\(result.stdout)")
        }
        let camera = try entry("camera.mov")
        #expect(camera["verdict"] as? String == "rejected" && camera["error_code"] as? Int == 101)
        #expect((camera["reason"] as? String)?.contains("(H.264 video, AAC audio)") == true, "\(camera)")
        #expect((camera["reason"] as? String)?.contains("ffmpeg -i in.mov -c copy") == true, "\(camera)")
        let edit = try entry("edit.mov")
        #expect((edit["reason"] as? String)?.contains("(ProRes 422 HQ video, PCM audio)") == true, "\(edit)")
        #expect((edit["reason"] as? String)?.contains("convert it to MP4 (H.264 video, AAC audio)") == true, "\(edit)")
        let web = try entry("web.mp4")
        #expect(web["verdict"] as? String == "accepted", "\(web)")
        let warning = "the video track is VP9 (vp09), which iOS does not reliably play in a notification; re-encode it to H.264 (or HEVC)"
        #expect((web["warnings"] as? [String])?.contains(warning) == true, "\(web)")

        let out = dir.appendingPathComponent("out")
        let prepared = try ProcessRunner.run(
            "pushattach", ["prepare", dir.appendingPathComponent("web.mp4").path, "-o", out.path, "-q"])
        #expect(prepared.status == 0, "\(prepared.stderr)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let recorded = try #require(((manifest as? [String: Any])?["entries"] as? [[String: Any]])?.first)
        #expect(recorded["action"] as? String == "pass-through" && (recorded["warnings"] as? [String])?.contains(warning) == true, "\(recorded)")
    }

    @Test func aFolderWithNoMediaFileExits1() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("a note\n".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        let result = try ProcessRunner.run("pushattach", ["verify", dir.path])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("skipped, not media: 1 file in folders: notes.txt (plain text)"), "\(result.stdout)")
    }
}
