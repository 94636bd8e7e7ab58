import Foundation
import MediaTypes
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// A NUL byte in a journal path: a journal line is text anyone who can write into the
/// container can edit. `"..\u{0}"` is not `..` to Swift but is `..` to C, so a `--resume` that
/// trusted it would walk out of the container and count a file outside, of the recorded size,
/// as "already prepared" (an existence-and-size oracle, and an outside path kept in the manifest).
///
/// Each case forges the journal line of an item whose URL the run serves, with a file of the
/// recorded size where the path would lead: the line must not be trusted, so the item is
/// prepared again into `Images/` and no entry names the forged path.
@Suite("Manifest: forged journal paths are not trusted on --resume", .tags(.slow), .notInFastTier)
struct JournalPathResumeTests {
    /// A forged `file` (and `thumbnail`) and, relative to the folder holding the container, the
    /// file planted where it leads.
    struct Forged: Sendable, CustomTestStringConvertible {
        var file: String
        var thumbnail: String?
        var planted: String
        var testDescription: String { DisplayText.escaped("file \(file), thumbnail \(thumbnail ?? "-")") }
    }

    static let cases: [Forged] = [
        // C reads `..`, the folder above the container.
        Forged(file: "..\u{0}/outside.bin", planted: "outside.bin"),
        Forged(file: "..\u{0}anything/outside.bin", planted: "outside.bin"),
        Forged(file: "Images/..\u{0}/..\u{0}/outside.bin", planted: "outside.bin"),
        // A good file, and a thumbnail outside.
        Forged(file: "Images/A-a.jpg", thumbnail: "..\u{0}/outside.bin", planted: "outside.bin"),
        // Control characters, in a name planted inside (no name the run makes has one).
        Forged(file: "Images/A-\u{1}a.jpg", planted: "out/Images/A-\u{1}a.jpg"),
        Forged(file: "Images/A-\u{1B}[2Ja.jpg", planted: "out/Images/A-\u{1B}[2Ja.jpg"),
        Forged(file: "Images/A-\u{85}a.jpg", planted: "out/Images/A-\u{85}a.jpg"),
        // Absolute, `..`, empty components, outside the known folders.
        Forged(file: "ABSOLUTE/outside.bin", planted: "outside.bin"),
        Forged(file: "../outside.bin", planted: "outside.bin"),
        Forged(file: "Images//A-a.jpg", planted: "out/Images/A-a.jpg"),
        Forged(file: "notes.txt", planted: "out/notes.txt"),
        Forged(file: "Images/.A-a.jpg", planted: "out/Images/.A-a.jpg"),
    ]

    @Test(arguments: cases)
    func forgedPathIsNotTrustedAndTheItemIsPreparedAgain(_ forged: Forged) async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        let url = f.server.url("/a.jpg")
        let images = f.container.appendingPathComponent("Images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let file = forged.file.replacingOccurrences(of: "ABSOLUTE", with: f.dir.url.path)
        // What the path leads to (as C reads it) is there, of the size the line records.
        let size = 1234
        let planted = f.dir.url.appendingPathComponent(forged.planted)
        try Data(repeating: 0x41, count: size).write(to: planted)
        if forged.thumbnail != nil {
            try Data(repeating: 0x42, count: size).write(to: images.appendingPathComponent("A-a.jpg"))
        }
        let journal = try ManifestJournal(directory: f.container)
        try journal.append(
            ManifestEntry(
                index: 0, input: url, line: 1, status: .prepared, file: file, bytes: size,
                thumbnail: forged.thumbnail))
        try journal.close()

        var options = try f.options([url])
        options.resume = true
        let notes = Watched([String]())
        let summary = try await BatchRunner(options: options).run { event in
            if case .note(let text) = event { notes.update { $0.append(text) } }
        }
        #expect(summary.skipped == 0, "the forged line was trusted: \(notes.value)")
        #expect(summary.prepared == 1, "\(summary)")
        let (byInput, entries) = try f.manifest(f.container)
        #expect(entries.count == 1)
        let entry = try #require(byInput[url])
        #expect(entry.status == .prepared)
        #expect(entry.file?.hasPrefix("Images/") == true && entry.file != file, "\(entry.file ?? "-")")
        #expect(entry.thumbnail == nil)
        #expect(!notes.value.isEmpty, "the skipped line is said")
    }
}
