import Foundation
import TestSupport
import Testing

/// `verify` says what `prepare` will do, because both run one plan (`MediaCheck.plan`): for every
/// media file of `TestImages/` and a set of generated edge cases, `verify --json`'s `action`,
/// `error_code`, `output_format` and size (upright) equal the `action`, `error_code`, `format` and
/// `source_width` x `source_height` that `prepare` records for the same bytes under the same name
/// (served over loopback), file by file.
///
/// `prepare`'s `action` is read from what its engine did (passed through, re-encoded, which
/// format came out), not from the plan, so the two are independent accounts.
@Suite("verify and prepare run one plan", .serialized, .ownThread, .tags(.slow), .notInFastTier)
struct PlanAgreementCLITests {
    /// Documentation, scripts, checksums and licences beside the media: not attachments.
    static let skipped: Set<String> = [
        "md", "markdown", "sh", "py", "tsv", "c", "toml", "sha256", "fnv1a", "html", "ijg", "txt",
    ]

    /// Every file of `TestImages/` but documentation and scripts (text files named as text
    /// included: `not-media.txt`).
    static func testImageFiles() -> [URL] {
        let root = Corpus.testImages
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var files: [URL] = [root.appendingPathComponent("not-media.txt")]
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let ext = url.pathExtension.lowercased()
            let name = url.lastPathComponent
            if skipped.contains(ext) || name.hasPrefix("LICENSE") || name.hasPrefix("README")
                || name.hasSuffix("_LICENSE") || name == "MANIFEST.sha256"
            {
                continue
            }
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Edge cases the fixtures lack, written into `dir`: files over the 10 MB cap in each image
    /// format iOS takes, wrong and missing extensions, empty and text files named as images,
    /// files cut short.
    static func generatedCases(in dir: URL) throws -> [URL] {
        let images = Corpus.testImages
        let jpeg = try Data(contentsOf: images.appendingPathComponent("photo-1600x1200.jpg"))
        let png = try Data(contentsOf: images.appendingPathComponent("opaque-300x200.png"))
        let gif = try Data(contentsOf: images.appendingPathComponent("animated-120x90.gif"))
        let padding = 10_500_000
        let cases: [(String, Data)] = [
            ("oversized-photo.jpg", Padding.jpeg(jpeg, adding: padding)),
            ("oversized-image.png", Padding.png(png, adding: padding)),
            ("oversized-animation.gif", Padding.gif(gif, adding: padding)),
            ("png-named.jpg", png),
            ("jpeg-named.gif", jpeg),
            ("gif-named.png", gif),
            ("jpeg-without-extension", jpeg),
            ("empty.jpg", Data()),
            ("empty.png", Data()),
            ("text-named.jpg", Data("<html><body>404 not found</body></html>\n".utf8)),
            ("cut-in-half.png", png.prefix(png.count / 2)),
            ("cut-in-half.gif", gif.prefix(gif.count * 2 / 3)),
            ("cut-in-half.jpg", jpeg.prefix(jpeg.count / 2)),
            ("301-frames.gif", Padding.manyFrames(301)),
        ]
        return try cases.map { name, data in
            let url = dir.appendingPathComponent(name)
            try data.write(to: url)
            return url
        }
    }

    /// Lenient (the default) and strict: one policy, so a file's extension that disagrees with
    /// its bytes is a warning to both, or a refusal (101) by both.
    @Test(arguments: [[], ["--strict"]])
    func verifyForetellsWhatPrepareDoesFileByFile(policy flags: [String]) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("plan-agreement-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = Self.testImageFiles() + (try Self.generatedCases(in: dir.appendingPathComponent("cases", isDirectory: true).creatingDirectory()))
        #expect(files.count > 500, "only \(files.count) files found under TestImages")

        // 1. verify --json, every file named on the command line.
        let verify = try ProcessRunner.run("pushattach", ["verify", "--json"] + flags + files.map(\.path))
        var plans: [String: [String: Any]] = [:]
        for line in verify.stdout.split(separator: "\n") {
            let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            plans[try #require(report["path"] as? String)] = report
        }
        #expect(plans.count == files.count, "verify reported \(plans.count) of \(files.count); stderr: \(verify.stderr)")

        // 2. prepare of the same bytes under the same names, over loopback.
        let server = try TestHTTPServer()
        defer { _ = server.stop() }
        var urlToPath: [String: String] = [:]
        var list = ""
        for (i, file) in files.enumerated() {
            let name = file.lastPathComponent.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "x"
            let path = "/\(i)/\(name)"
            let data = try Data(contentsOf: file)
            server.route(path) { _ in .bytes(data, contentType: "application/octet-stream") }
            let url = server.url(path)
            urlToPath[url] = file.path
            list += url + "\n"
        }
        let listFile = dir.appendingPathComponent("urls.txt")
        try Data(list.utf8).write(to: listFile)
        let out = dir.appendingPathComponent("out")
        let prepare = try ProcessRunner.run(
            "pushattach", ["prepare", listFile.path, "-o", out.path, "--json", "-q", "--allow-private-networks"] + flags)
        var entries: [String: [String: Any]] = [:]
        for line in prepare.stdout.split(separator: "\n") {
            let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let input = try #require(entry["input"] as? String)
            entries[try #require(urlToPath[input], "unknown input \(input)")] = entry
        }
        #expect(entries.count == files.count, "prepare recorded \(entries.count) of \(files.count); stderr: \(prepare.stderr)")

        // 3. File by file: the plan against what was done.
        var mismatches: [String] = []
        var actions: [String: Int] = [:]
        for file in files {
            guard let plan = plans[file.path], let entry = entries[file.path] else { continue }
            let planned = plan["action"] as? String ?? "?"
            let done = entry["action"] as? String ?? "none (\(entry["status"] as? String ?? "?"))"
            actions[planned, default: 0] += 1
            let planCode = plan["error_code"] as? Int
            let doneCode = entry["error_code"] as? Int
            let planFormat = plan["output_format"] as? String
            let doneFormat = done == "refuse" ? nil : entry["format"] as? String
            // The source's size, upright in both (an Exif-turned JPEG is reported as it is shown).
            let planSize = (plan["width"] as? Int).flatMap { w in (plan["height"] as? Int).map { "\(w)x\($0)" } }
            let doneSize = (entry["source_width"] as? Int).flatMap { w in
                (entry["source_height"] as? Int).map { "\(w)x\($0)" }
            }
            let sizesDiffer = planSize != nil && doneSize != nil && planSize != doneSize
            if planned != done || planCode != doneCode || planFormat != doneFormat || sizesDiffer {
                let relative = file.path.replacingOccurrences(of: Corpus.testImages.path + "/", with: "")
                mismatches.append(
                    "\(relative): verify \(planned) \(planCode.map(String.init) ?? "-") \(planFormat ?? "-") \(planSize ?? "-") (\(plan["reason"] as? String ?? "")); prepare \(done) \(doneCode.map(String.init) ?? "-") \(doneFormat ?? "-") \(doneSize ?? "-") (\(entry["reason"] as? String ?? ""))"
                )
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(files.count) disagree:\n\(mismatches.joined(separator: "\n"))")
        // Every action that the fixtures can reach is reached, so the agreement is not vacuous
        // (strict refuses the misnamed files lenient renames).
        for action in AttachmentActions.all where flags.isEmpty || action != "rename" {
            #expect(actions[action, default: 0] > 0, "no file was planned \(action): \(actions)")
        }
        print("plan agreement \(flags): \(files.count) files, \(mismatches.count) disagree; planned \(actions.sorted { $0.key < $1.key })")
    }
}

extension URL {
    /// This folder, created if missing.
    fileprivate func creatingDirectory() throws -> URL {
        try FileManager.default.createDirectory(at: self, withIntermediateDirectories: true)
        return self
    }
}

/// Valid files made larger without changing their pixels: metadata the decoders skip.
enum Padding {
    /// APP15 segments (64 KB each at most) after SOI.
    static func jpeg(_ data: Data, adding bytes: Int) -> Data {
        var out = Data(data.prefix(2))
        var left = bytes
        while left > 0 {
            let length = min(65_533, left)
            out += [0xFF, 0xEF, UInt8((length + 2) >> 8), UInt8((length + 2) & 0xFF)]
            out += Data(repeating: 0x20, count: length)
            left -= length
        }
        return out + data.dropFirst(2)
    }

    /// A private ancillary chunk (`prVt`) after IHDR, with its CRC.
    static func png(_ data: Data, adding bytes: Int) -> Data {
        let afterIHDR = 8 + 8 + 13 + 4
        var chunk = Data("prVt".utf8) + Data(repeating: 0x20, count: bytes)
        let crc = CRC32.checksum(chunk)
        let length = UInt32(bytes)
        chunk = Data([UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]) + chunk
        chunk += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        return data.prefix(afterIHDR) + chunk + data.dropFirst(afterIHDR)
    }

    /// A 1x1 animated GIF of `frames` frames (over the 300-frame cap at 301), alternating two
    /// colours, 10 ms each: each frame the classic one-pixel LZW block.
    static func manyFrames(_ frames: Int) -> Data {
        var gif = Data("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0]  // 1x1, a 2-colour table
        gif += [0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF]  // red, blue
        gif += [0x21, 0xFF, 11] + Data("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]  // loop forever
        for k in 0..<frames {
            gif += [0x21, 0xF9, 4, 0x04, 1, 0, 0, 0]  // 10 ms, disposal: leave
            gif += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]
            // LZW, minimum code size 2, 3-bit codes: clear (4), the index, end (5).
            let bits = UInt16(4) | UInt16(k % 2) << 3 | UInt16(5) << 6
            gif += [2, 2, UInt8(bits & 0xFF), UInt8(bits >> 8), 0]
        }
        return gif + [0x3B]
    }

    /// A comment extension (255-byte sub-blocks) after the global colour table.
    static func gif(_ data: Data, adding bytes: Int) -> Data {
        let bytesArray = [UInt8](data)
        let flags = bytesArray[10]
        let table = flags & 0x80 != 0 ? 3 << (Int(flags & 0x07) + 1) : 0
        let start = 13 + table
        var comment = Data([0x21, 0xFE])
        var left = bytes
        while left > 0 {
            let n = min(255, left)
            comment.append(UInt8(n))
            comment += Data(repeating: 0x20, count: n)
            left -= n
        }
        comment.append(0)
        return Data(bytesArray[..<start]) + comment + Data(bytesArray[start...])
    }
}

/// Every action of the plan (`AttachmentPlan.Action`), as `verify --json` spells them.
enum AttachmentActions {
    static let all = ["pass-through", "rename", "convert", "fit", "reencode-animation", "first-frame", "refuse"]
}

/// PNG's CRC-32 (ISO 3309), bitwise: fast enough for one 10 MB chunk in a test.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ data: Data) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in data { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
