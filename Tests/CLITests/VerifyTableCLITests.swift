import Foundation
import TestSupport
import Testing

/// `verify`'s human output: a header row, columns as wide as their content (nothing cut), both
/// halves (what `prepare` does, what iOS does with the file as it is), and `--quiet` showing
/// only the files `prepare` changes or refuses.
@Suite("pushattach verify table", .tags(.slow), .notInFastTier)
struct VerifyTableCLITests {
    func fixture(_ name: String) -> String { Corpus.testImages.appendingPathComponent(name).path }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func tableHasHeadersAndColumnsSizedToTheirContent() throws {
        let gif = fixture("animated-120x90.gif"), jpeg = fixture("small-320x240.jpg")
        let result = try ProcessRunner.run("pushattach", ["verify", gif, jpeg])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(
            Self.lines(result.stdout) == [
                "verdict   action        ios       format  uti                      size  dimensions        path",
                "accepted  pass-through  accepted  gif     com.compuserve.gif  477 bytes  120x90, 3 frames  \(gif)",
                "accepted  pass-through  accepted  jpeg    public.jpeg           13.3 kB  320x240           \(jpeg)",
                "",
                "2 files: 2 accepted, 0 transcode, 0 rejected",
                "as they are, iOS would take 2 and refuse 0",
                "",
            ])
    }

    /// Reasons and warnings follow their file, indented; the path column starts where its header does.
    @Test func detailsFollowTheirFileAndEveryPathIsAligned() throws {
        let result = try ProcessRunner.run("pushattach", ["verify", Corpus.testImages.path])
        #expect(result.status == 1)
        let lines = Self.lines(result.stdout)
        let header = try #require(lines.first)
        #expect(header.wholeMatch(of: /verdict +action +ios +format +uti +size  dimensions +path/) != nil, "\(header)")
        let pathColumn = try #require(header.range(of: "path")).lowerBound.utf16Offset(in: header)
        let rows = lines.dropFirst().prefix { !$0.isEmpty }
        #expect(rows.count > 10)
        for row in rows where !row.hasPrefix("  ") {
            let path = row.dropFirst(pathColumn)
            #expect(path.hasPrefix(Corpus.testImages.path + "/"), "\(row)")
            #expect(row[row.index(row.startIndex, offsetBy: pathColumn - 2)...].hasPrefix("  /"), "\(row)")
        }
        #expect(rows.contains { $0.contains("  120x90, 3 frames  ") })
        // An animated WebP keeps its frames: transcode to GIF, and no "first frame" warning.
        #expect(rows.contains { $0 == "  prepare re-encodes the animation as a GIF: iOS does not accept WebP" })
        // (An AVIF image sequence still keeps only its first frame, with that warning.)
        #expect(!rows.contains { $0.contains("WebP") && $0.contains("only the first frame") })
        #expect(rows.contains { $0.contains("animated AVIF") && $0.contains("only the first frame") })
        #expect(rows.contains { $0.hasPrefix("  [105] the JPEG image data is damaged") })
    }

    @Test func quietShowsOnlyFilesNotAcceptedAndTheSummary() throws {
        let named = fixture("jpeg-named.png")
        let result = try ProcessRunner.run("pushattach", ["verify", "-q", fixture("small-320x240.jpg"), named])
        // A rename reaches the device: the default gate passes it.
        #expect(result.status == 0)
        let reason =
            "the file is named .png but its bytes are JPEG, and iOS goes by the extension: prepare writes it as .jpg (rename it to .jpg to send it as it is)"
        #expect(
            Self.lines(result.stdout) == [
                "verdict    action  ios           format  uti             size  dimensions  path",
                "transcode  rename  rejected 101  jpeg    public.jpeg  13.3 kB  320x240     \(named)",
                "  \(reason)",
                "",
                "2 files: 1 accepted, 1 transcode, 0 rejected",
                "as they are, iOS would take 1 and refuse 1",
                "",
            ])
    }

    @Test func quietWithEverythingAcceptedPrintsTheSummaryAlone() throws {
        let result = try ProcessRunner.run("pushattach", ["verify", "--quiet", fixture("small-320x240.jpg")])
        #expect(result.status == 0)
        #expect(result.stdout == "1 file: 1 accepted, 0 transcode, 0 rejected\nas they are, iOS would take 1 and refuse 0\n")
    }

    @Test func quietJSONHasOnlyTheFilesNotAccepted() throws {
        let result = try ProcessRunner.run(
            "pushattach", ["verify", "-q", "--json", fixture("small-320x240.jpg"), fixture("lossy-320x240.webp")])
        #expect(result.status == 0, "a WebP prepare converts reaches the device")
        let objects = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["verdict"] as? String } == ["transcode"])
    }

    /// As a CI gate: by default only what would not reach a device fails; `--fail-on transcode`
    /// and `--fail-on ios` are the stricter gates.
    @Test func theGateFailsOnlyWhatWillNotReachADeviceUnlessAskedForMore() throws {
        func status(_ arguments: [String]) throws -> Int32 {
            try ProcessRunner.run("pushattach", ["verify", "-q"] + arguments).status
        }
        let large = fixture("large-4000x3000.jpg")  // fitted by prepare; iOS takes it as it is
        let webp = fixture("lossy-320x240.webp")  // converted by prepare; iOS refuses it as it is
        let small = fixture("small-320x240.jpg")
        #expect(try status([large, webp]) == 0)
        #expect(try status(["--fail-on", "rejected", large, webp]) == 0)
        #expect(try status(["--fail-on", "transcode", large]) == 1)
        #expect(try status(["--fail-on", "transcode", small]) == 0)
        #expect(try status(["--fail-on", "ios", large]) == 1, "prepare changes it")
        #expect(try status(["--fail-on", "ios", webp]) == 1)
        #expect(try status(["--fail-on", "ios", small]) == 0)
        #expect(try status([fixture("truncated.jpg")]) == 1)
        #expect(try status(["--fail-on", "never", small]) == 64)
    }
}
