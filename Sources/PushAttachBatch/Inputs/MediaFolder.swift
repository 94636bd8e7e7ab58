import Foundation
import MediaTypes
import PushAttach

/// Which files of a folder are media to judge, by the rule every face applies (`FileKind`): the
/// bytes are a format we know, or the name has a media extension. `verify` and `prepare` walk
/// folders with it, so both pass over the same README and both report it.
///
///     MediaFolder.kind(ofFileAt: URL(fileURLWithPath: "shots/notes.txt"))   // .notMedia(.text)
///     MediaFolder.kind(ofFileAt: URL(fileURLWithPath: "shots/page.jpg"))    // .media, whatever it holds
public enum MediaFolder {
    /// The kind of the file at `url`, from its first bytes (at most `ContentGuess.prefixLength`
    /// are read) and its name. A file that cannot be read counts as media, so that its judgement
    /// says why it could not be read.
    public static func kind(ofFileAt url: URL) -> FileKind {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return .media }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: ContentGuess.prefixLength) else { return .media }
        return FileKind.of(prefix: [UInt8](head), fileExtension: url.pathExtension)
    }
}
