import Foundation
import MediaTypes
import PushAttach
import PushPayloads
import SystemSupport

/// What a batch reads: URLs given in code, a file of them (a URL list, JSON lines, a push
/// payload in the common conventions), or standard input, as `pushattach prepare INPUT` reads it.
///
///     let inputs: [BatchInput] = [.urls(urls), .file(URL(fileURLWithPath: "payloads.jsonl"))]
public struct BatchInput: Sendable, Hashable {
    enum Source: Sendable, Hashable {
        case urls([URL])
        /// A path as the caller wrote it: entries for problems in the file name it so (`list.txt:12`).
        case file(String)
        case standardInput
    }

    let source: Source

    /// These URLs, one item each, in order.
    public static func urls(_ urls: [URL]) -> BatchInput { BatchInput(source: .urls(urls)) }

    /// The items of a file: a URL list (one URL per line, optionally followed by a `media_type`;
    /// `#` comments), JSON lines (`{"url", "media_type", "id"}`, or a push payload per line), a
    /// push payload JSON document, or a local media file (one item). A folder gives every media
    /// file in it (by their first bytes; other files are passed over), in sorted order, and in
    /// its sub-folders too with `AttachmentBatch.Options.recursive`.
    public static func file(_ url: URL) -> BatchInput { BatchInput(source: .file(url.path)) }

    /// As `file(_:)`, for a path as the user typed it (relative to the working directory, or
    /// absolute): the entry for a problem in the file (a bad line) names it so, `lists/a.txt:12`.
    public static func file(atPath path: String) -> BatchInput { BatchInput(source: .file(path)) }

    /// The items of the process's standard input, read as a file is (`pushattach prepare -`);
    /// a line that names an existing local media file by its path is that file (`find … |
    /// pushattach prepare -`), so feed it only what the process may read.
    public static let standardInput = BatchInput(source: .standardInput)

    /// How many items `inputs` hold, problems (a bad line) included, each one becoming an entry;
    /// nil when that cannot be known ahead (standard input). Reads each file once, keeping nothing:
    /// a progress total for a list of a million lines costs a pass over it, not its memory.
    public static func itemCount(_ inputs: [BatchInput], recursive: Bool = false) -> Int? {
        var paths: [String] = []
        var count = 0
        for input in inputs {
            switch input.source {
            case .urls(let urls): count += urls.count
            case .file(let path): paths.append(path)
            case .standardInput: return nil
            }
        }
        var options = InputReader.Options()
        options.recursiveFolders = recursive
        // Pushes without media are not items: the progress never sees them finish.
        for event in InputReader(inputs: paths, options: options) {
            switch event {
            case .noMedia, .skipped: continue
            case .item, .problem: count += 1
            }
        }
        return count
    }

    /// True when none of `inputs` names anything: no URL, payload, media file or problem (an
    /// empty list, a folder of notes only), so a batch would have nothing to do. Reads each file
    /// only up to its first item. False when standard input is among them (it can be read once).
    ///
    ///     if BatchInput.holdsNothing([.file(list)]) { print("nothing to prepare") }
    public static func holdsNothing(_ inputs: [BatchInput], recursive: Bool = false) -> Bool {
        var paths: [String] = []
        for input in inputs {
            switch input.source {
            case .urls(let urls): if !urls.isEmpty { return false }
            case .file(let path): paths.append(path)
            case .standardInput: return false
            }
        }
        var options = InputReader.Options()
        options.recursiveFolders = recursive
        for event in InputReader(inputs: paths, options: options) {
            if case .skipped = event { continue }
            return false
        }
        return true
    }

    /// The push payload conventions a file or a JSON line is searched for (`aps.attachment-url`,
    /// `fcm_options.image`, …): each key with a one-line summary and the smallest payload using it.
    public static var payloadConventions: [PayloadConvention] {
        PayloadConventions.all.map { PayloadConvention(key: $0.key, summary: $0.summary, example: $0.example) }
    }
}

/// One push payload convention a batch reads (`BatchInput.payloadConventions`).
public struct PayloadConvention: Sendable, Hashable {
    /// The key as `prepare --help` shows it: `attachment`, `fcm_options.image`, `att`.
    public var key: String
    /// Who sends it so, and where the type hint comes from.
    public var summary: String
    /// A smallest payload using it, as one line of JSON.
    public var example: String
}
