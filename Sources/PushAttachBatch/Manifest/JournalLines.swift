import Foundation
import MediaTypes
import PushAttach
import SystemSupport

/// A manifest journal read line by line, each line decoded as `Entry` with where it stands in
/// the file: the first pass `JournalIndex`, `JournalMerge` and `ResumeIndex` share.
///
///     var lines = try JournalLines<ManifestEntry>(in: folder, name: "manifest.jsonl")
///     while let line = try lines.next() { keep(line.entry, offset: line.offset, length: line.length) }
///     warnings += lines.warnings    // ["manifest.jsonl:7: not a manifest entry, skipped"]
///
/// The journal is opened in `folder` without following a link and read through `LineReader`
/// (one buffer; lines up to `maxLineBytes`). Blank lines (spaces and `\r` only) are passed
/// over; a line too long, not decodable as `Entry`, or naming a file that is not one of the
/// container's (`ContainerPath.problem`: a NUL byte, a `..`, an absolute path, …) is skipped
/// and kept for `warnings`. Every reader of a journal (`--resume`, the merge that writes
/// `manifest.json`) goes through here, so no such path reaches a file-system call or the
/// manifest.
///
/// - Complexity: one read of the file; memory is one line and the numbers of the bad ones.
struct JournalLines<Entry: JournalLine> {
    /// One decoded line: `offset` of its first byte in the file, `length` without the newline.
    struct Line {
        var entry: Entry
        var offset: Int
        var length: Int
    }

    /// The longest journal line read (4 MiB); a longer one is skipped with a warning.
    static var maxLineBytes: Int { 4 * 1024 * 1024 }

    /// The journal's file name, as warnings name it.
    let name: String
    private let reader: LineReader
    private let decoder = JSONDecoder()
    private var offset = 0
    private var lineNumber = 0
    /// Skipped lines; `cut` when the line could be one a crash cut short (it does not decode).
    private var bad: [(line: Int, reason: String, cut: Bool)] = []

    /// Opens `name` in `folder` read-only, without following a link (`ContainerError` when it
    /// cannot be opened).
    init(in folder: DirectoryHandle, name: String) throws(ContainerError) {
        self.name = name
        let fd = try folder.openFile(name, .readOnly)
        reader = LineReader(descriptor: fd, name: folder.path(of: name), maxLineBytes: Self.maxLineBytes)
    }

    /// The next line that decodes, or nil at the end of the file.
    mutating func next() throws(ContainerError) -> Line? {
        while let line = try reader.nextLine() {
            lineNumber += 1
            let start = offset
            switch line {
            case .tooLong(let bytes):
                offset += bytes + 1
                bad.append((lineNumber, "line too long", true))
            case .text(let bytes):
                offset += bytes.count + 1
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { continue }
                guard let entry = try? decoder.decode(Entry.self, from: Data(bytes)) else {
                    bad.append((lineNumber, "not a manifest entry", true))
                    continue
                }
                if let (path, problem) = entry.untrustedPath {
                    bad.append((lineNumber, "file path \(Self.shown(path)) is not trusted (\(problem))", false))
                    continue
                }
                return Line(entry: entry, offset: start, length: bytes.count)
            }
        }
        return nil
    }

    /// `path` escaped for a message, its first 120 characters: a warning stays short however
    /// long the line.
    private static func shown(_ path: String) -> String {
        DisplayText.escaped(path.prefix(120)) + (path.count > 120 ? "…" : "")
    }

    /// One warning per skipped line, read once `next` has returned nil: a bad last line is said
    /// to be truncated (an interrupted run leaves one).
    var warnings: [String] {
        bad.map { item in
            item.line == lineNumber && item.cut
                ? "\(name):\(item.line): truncated last line skipped (the previous run was interrupted)"
                : "\(name):\(item.line): \(item.reason), skipped"
        }
    }
}

/// A journal line as `JournalLines` decodes it: the whole entry, or the fields a pass needs,
/// always with the paths it names so they are checked.
protocol JournalLine: Decodable {
    /// The paths, relative to the container, the line names (`file`, `thumbnail`).
    var containerPaths: [String] { get }
}

extension JournalLine {
    /// The first path the line names that `ContainerPath` refuses, with why; nil when it names
    /// none.
    var untrustedPath: (path: String, problem: String)? {
        for path in containerPaths {
            if let problem = ContainerPath.problem(path) { return (path, problem) }
        }
        return nil
    }
}

extension ManifestEntry: JournalLine {
    var containerPaths: [String] { [file, thumbnail].compactMap { $0 } }
}
