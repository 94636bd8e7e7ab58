import Foundation
import MediaTypes
import PushAttach
import PushPayloads
import SystemSupport

/// Reads the INPUT arguments of `pushattach prepare` in order and yields one event per item or
/// problem, streaming: lists are read line by line through a fixed buffer.
///
///     let reader = InputReader(inputs: ["list.txt", "payload.json", "-"])
///     for event in reader {
///         switch event {
///         case .item(let item): enqueue(item)
///         case .problem(let problem): report(problem)   // "list.txt:12: not a URL: …"
///         }
///     }
///
/// How an INPUT is read:
/// 1. `-` is standard input; anything else is a path. A path that cannot be opened is one
///    problem; a folder gives its media files and reports the others as skipped (`readFolder`).
/// 2. UTF-16 text (a BOM) is a problem. A path is a local media file (one item,
///    `file:///absolute/path`, line 0) when its bytes are media or its name has a media
///    extension (`FileKind`, the rule folders are read by too): an HTML page named `.jpg` is an
///    item, refused as not media. Binary bytes on standard input are a problem.
/// 3. After an optional BOM and whitespace, a source starting with `[`, or with `{` whose first
///    line is not a whole JSON object, is one JSON document: a push payload (an object, or an
///    array of objects), read whole up to `maxDocumentBytes`. Each object is `{"url", "media_type",
///    "id"}` when it has `url`, else searched by `PayloadConventions`: one item per distinct URL.
///    Items report the line where their URL first appears in their object; a problem with an
///    object (not an object, no URL found), the line where it starts; invalid JSON, the line
///    the parser stopped on.
/// 4. Anything else is a list, read line by line, when it reads as one: its first line that is
///    not blank or a `#` comment must be a JSON object or start with a URL (or, on standard
///    input, a local path). Otherwise the whole source is one problem, "neither media nor a
///    list", that says what it looks like and quotes none of it (a text file of secrets given by
///    mistake never reaches a manifest). In a list, blank lines and `#` comments (a whole line,
///    or a ` #…` tail after whitespace) are skipped; a line starting with `{` is a JSON object,
///    `{"url", "media_type", "id"}` or any payload convention; any other line is
///    `URL [media_type]`. So text lists and JSON lines may even be mixed.
///
/// Reads block; call `next()` from a context that may block (file reads are short).
package final class InputReader: Sequence, IteratorProtocol {
    package struct Options: Sendable, Hashable {
        package var maxLineBytes = 64 * 1024
        package var maxDocumentBytes = 8 * 1024 * 1024
        package var maxURLBytes = URLCheck.maxBytes
        /// A folder INPUT's sub-folders are searched too (`prepare -r DIR`).
        package var recursiveFolders = false
        package init() {}
    }

    private let inputs: [String]
    private let standardInput: FileHandle
    private let options: Options
    private var nextInput = 0
    private var current: LineReader?
    private var pending: [InputEvent] = []
    private var pendingIndex = 0
    private var lineNumber = 0
    /// What the source being read line by line looks like, until its first entry shows it is a
    /// list; nil once it has.
    private var unproven: ContentGuess?

    package init(inputs: [String], standardInput: FileHandle = .standardInput, options: Options = Options()) {
        self.inputs = inputs
        self.standardInput = standardInput
        self.options = options
    }

    package func next() -> InputEvent? {
        while true {
            if pendingIndex < pending.count {
                defer { pendingIndex += 1 }
                return pending[pendingIndex]
            }
            pending.removeAll(keepingCapacity: true)
            pendingIndex = 0
            if let reader = current {
                readLine(from: reader)
                continue
            }
            guard nextInput < inputs.count else { return nil }
            let input = inputs[nextInput]
            nextInput += 1
            openInput(input)
        }
    }

    // MARK: - Opening and classifying a source

    private func openInput(_ input: String) {
        lineNumber = 0
        unproven = nil
        let reader: LineReader
        if input == "-" {
            reader = LineReader(
                descriptor: standardInput.fileDescriptor, name: input, ownsDescriptor: false,
                maxLineBytes: options.maxLineBytes)
        } else {
            if (try? SystemCall.status(atPath: input))?.kind == .directory {
                return readFolder(input)
            }
            let fd: Int32
            do { fd = try SystemCall.open(input, .readOnly) } catch {
                return problem(input, 0, .unreadable, "cannot open: \(error.reason)")
            }
            reader = LineReader(descriptor: fd, name: input, maxLineBytes: options.maxLineBytes)
        }
        do throws(ContainerError) {
            // Up to the first newline (or 512 bytes): enough for magic and the UTF-8 check, and
            // a slow producer on stdin is not waited on for more than its first line.
            let head = try reader.peekFirstLine(limit: ContentGuess.prefixLength)
            if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) {
                return problem(input, 0, .encoding, "UTF-16 text; save the list as UTF-8")
            }
            if input == "-" {
                if !head.isEmpty, MediaInput.looksLikeMedia(head) {
                    return problem(input, 0, .binary, "standard input holds binary data; expected a URL list or JSON")
                }
            } else if case .media = FileKind.of(prefix: head, fileExtension: URL(fileURLWithPath: input).pathExtension) {
                let path = URL(fileURLWithPath: input).standardizedFileURL
                pending.append(.item(InputItem(url: path.absoluteString, source: input, line: 0, convention: "file")))
                return
            }
            if try isDocument(reader) {
                readDocument(from: reader)
            } else {
                unproven = ContentGuess.of(head)
                current = reader
            }
        } catch {
            problem(input, 0, .unreadable, "cannot read: \(error)")
        }
    }

    /// Rule 3 above.
    private func isDocument(_ reader: LineReader) throws(ContainerError) -> Bool {
        let head = try reader.peekFirstLine(limit: options.maxLineBytes)
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let first = bytes.firstIndex(where: { !Self.isSpace($0) }) else { return false }
        switch bytes[first] {
        case UInt8(ascii: "["): return true
        case UInt8(ascii: "{"):
            let line = bytes[first...].prefix(while: { $0 != 0x0A })
            let object = try? JSONSerialization.jsonObject(with: Data(line))
            return !(object is [String: Any])
        default: return false
        }
    }

    // MARK: - Whole JSON documents

    private func readDocument(from reader: LineReader) {
        let source = reader.name
        let bytes: [UInt8]?
        do throws(ContainerError) { bytes = try reader.readToEnd(limit: options.maxDocumentBytes) } catch {
            return problem(source, 0, .unreadable, "cannot read: \(error)")
        }
        guard let bytes else {
            return problem(
                source, 0, .tooLarge, "JSON document larger than \(options.maxDocumentBytes) bytes; split it or use JSON lines")
        }
        let locator = LineLocator(bytes)
        let json: Any
        do { json = try JSONSerialization.jsonObject(with: Data(bytes)) } catch {
            let line = Self.jsonErrorOffset(error, documentBytes: bytes.count).map { locator.line(atOffset: $0) } ?? 0
            return problem(source, line, .json, "not valid JSON: \(Self.jsonReason(error))")
        }
        let objects: [Any] = (json as? [Any]) ?? [json]
        // Where each element (or the one payload) starts: its problems are reported on that line,
        // its items on the line where their URL first appears within it.
        let starts = locator.valueStarts()
        for (index, element) in objects.enumerated() {
            // Counted from 1, as a person counts the pushes in a file.
            let place = json is [Any] ? "element \(index + 1) of the JSON array" : "the payload"
            let start = index < starts.count ? starts[index] : 0
            guard let object = element as? [String: Any] else {
                problem(source, locator.line(atOffset: start), .json, "\(place) is not an object")
                continue
            }
            switch PayloadConventions.items(inInputObject: object) {
            case .failure(let failure) where failure.isPushWithoutMedia:
                pending.append(
                    .noMedia(InputProblem(source: source, line: locator.line(atOffset: start), kind: .noURL, message: "\(place): no media")))
            case .failure(let failure):
                problem(source, locator.line(atOffset: start), .noURL, "\(place): \(failure.message)")
            case .success(let found):
                for item in found {
                    emit(item, source: source, line: locator.line(of: item.url, from: start))
                }
            }
        }
    }

    // MARK: - Lines

    private func readLine(from reader: LineReader) {
        let line: LineReader.Line?
        do throws(ContainerError) { line = try reader.nextLine() } catch {
            current = nil
            return problem(reader.name, lineNumber, .unreadable, "cannot read: \(error)")
        }
        guard let line else {
            current = nil
            return
        }
        lineNumber += 1
        switch line {
        case .tooLong(let size):
            if notAList(reader) { return }
            problem(reader.name, lineNumber, .tooLong, "line too long: \(size) bytes (limit \(options.maxLineBytes))")
        case .text(var bytes):
            if lineNumber == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
            if bytes.last == 0x0D { bytes.removeLast() }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                if notAList(reader) { return }
                return problem(reader.name, lineNumber, .encoding, "not UTF-8 text")
            }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if unproven != nil, !trimmed.isEmpty, !trimmed.hasPrefix("#") {
                if !Self.looksLikeAnEntry(trimmed, source: reader.name), notAList(reader) { return }
                unproven = nil
            }
            parseLine(text, source: reader.name, line: lineNumber)
        }
    }

    /// Ends a source whose first entry shows it is no list: one problem for the whole source,
    /// saying what it looks like and quoting none of it. False once the source has shown it is
    /// a list (a bad line then is that line's problem).
    private func notAList(_ reader: LineReader) -> Bool {
        guard let guess = unproven else { return false }
        current = nil
        unproven = nil
        problem(
            reader.name, 0, .notAnInput,
            "neither media nor a list: it holds \(guess.phrase); give media files (their bytes, or a media extension, say what they are), a URL list (URL [media_type] a line) or JSON lines and push payloads")
        return true
    }

    /// True for a first entry a list could start with: a JSON object, a URL, or on standard
    /// input a local path.
    static func looksLikeAnEntry(_ text: String, source: String) -> Bool {
        if text.hasPrefix("{") { return true }
        let first = strippingComment(text).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? ""
        if first.contains("://") || first.lowercased().hasPrefix("www.") { return true }
        return source == "-" && (first.hasPrefix("/") || first.hasPrefix("./") || first.hasPrefix("~"))
    }

    private func parseLine(_ raw: String, source: String, line: Int) {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if text.isEmpty || text.hasPrefix("#") { return }
        if text.hasPrefix("{") { return parseJSONLine(text, source: source, line: line) }

        switch localFile(text, source: source) {
        case .media(let local): return pending.append(.item(local))
        case .skipped(let guess):
            return pending.append(.skipped(SkippedFile(source: source, path: text, looksLike: guess)))
        case nil: break
        }
        let fields = Self.strippingComment(text).split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count <= 2 else {
            return problem(source, line, .badLine, "expected 'URL [media_type]', found \(fields.count) fields")
        }
        emit(
            url: String(fields[0]), mediaType: fields.count == 2 ? String(fields[1]) : nil, id: nil,
            source: source, line: line, convention: nil)
    }

    private func parseJSONLine(_ text: String, source: String, line: Int) {
        let json: Any
        do { json = try JSONSerialization.jsonObject(with: Data(text.utf8)) } catch {
            return problem(source, line, .json, "not valid JSON: \(Self.jsonReason(error))")
        }
        guard let object = json as? [String: Any] else { return problem(source, line, .json, "JSON line is not an object") }
        switch PayloadConventions.items(inInputObject: object) {
        case .failure(let failure) where failure.isPushWithoutMedia:
            pending.append(.noMedia(InputProblem(source: source, line: line, kind: .noURL, message: "no media")))
        case .failure(let failure): problem(source, line, .noURL, failure.message)
        case .success(let found): for item in found { emit(item, source: source, line: line) }
        }
    }

    /// Drops a ` #…` tail: a `#` after whitespace starts a comment (a `#` inside a URL is a fragment).
    static func strippingComment(_ text: String) -> Substring {
        var previousIsSpace = false
        for index in text.indices {
            let character = text[index]
            if character == "#", previousIsSpace { return text[..<index] }
            previousIsSpace = character == " " || character == "\t"
        }
        return text[...]
    }

    // MARK: - Output

    // MARK: - Folders and local paths

    /// A folder INPUT, as `mogrify` takes one: every media file in it (`FileKind`: its bytes, or
    /// its name; lists, notes and hidden files are not), in sorted order, each one item; the
    /// others reported as skipped, with what they look like; its sub-folders too with
    /// `recursiveFolders`. A folder with no media file is one problem.
    private func readFolder(_ folder: String) {
        // A folder named through a link is listed where the link points.
        let base = URL(fileURLWithPath: folder).resolvingSymlinksInPath().standardizedFileURL
        var options: FileManager.DirectoryEnumerationOptions = [.skipsHiddenFiles]
        if !self.options.recursiveFolders { options.insert(.skipsSubdirectoryDescendants) }
        guard let walker = FileManager.default.enumerator(
            at: base, includingPropertiesForKeys: [.isRegularFileKey], options: options)
        else { return problem(folder, 0, .unreadable, "cannot list the folder") }
        var files: [URL] = []
        for case let url as URL in walker
        where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            files.append(url.standardizedFileURL)
        }
        var found = 0
        for file in files.sorted(by: { $0.path < $1.path }) {
            switch MediaFolder.kind(ofFileAt: file) {
            case .media:
                found += 1
                pending.append(.item(InputItem(url: file.absoluteString, source: folder, line: 0, convention: "file")))
            case .notMedia(let guess):
                pending.append(.skipped(SkippedFile(source: folder, path: file.path, looksLike: guess)))
            }
        }
        if found == 0 {
            let hint = self.options.recursiveFolders ? "" : " (its sub-folders are searched with --recursive)"
            problem(folder, 0, .emptyFolder, "is a folder with no media file\(hint)")
        }
    }

    /// What a line of standard input that names a regular file is.
    private enum LocalFile {
        /// A media file (`FileKind`): its `file://` item.
        case media(InputItem)
        /// Neither its bytes nor its name are media: skipped, with what it looks like, never
        /// read further (a `find` over a home folder must not put a `.netrc` into a manifest).
        case skipped(ContentGuess)
    }

    /// A line of standard input that names a local file (`find … | pushattach prepare -`); nil
    /// for anything else. Only standard input is read so (the user's own pipeline): a list file
    /// from elsewhere cannot make a run read local files.
    private func localFile(_ field: String, source: String) -> LocalFile? {
        guard source == "-", !field.contains("://"), (try? SystemCall.status(atPath: field))?.kind == .regular
        else { return nil }
        if case .notMedia(let guess) = MediaFolder.kind(ofFileAt: URL(fileURLWithPath: field)) { return .skipped(guess) }
        let url = URL(fileURLWithPath: field).standardizedFileURL
        return .media(InputItem(url: url.absoluteString, source: source, line: lineNumber, convention: "file"))
    }

    private func emit(url: String, mediaType: String?, id: String?, source: String, line: Int, convention: String?) {
        if let reason = URLCheck.problem(url, maxBytes: options.maxURLBytes) {
            return problem(source, line, .badURL, reason)
        }
        pending.append(
            .item(
                InputItem(
                    url: url, mediaType: mediaType, id: id, source: source, line: line,
                    convention: convention)))
    }

    private func emit(_ found: PayloadConventions.Found, source: String, line: Int) {
        emit(
            url: found.url, mediaType: found.mediaType, id: found.id, source: source, line: line,
            convention: found.convention)
    }

    private func problem(_ source: String, _ line: Int, _ kind: InputProblem.Kind, _ message: String) {
        pending.append(.problem(InputProblem(source: source, line: line, kind: kind, message: message)))
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// Where Foundation's parser stopped: the byte offset it names ("… around character 66."),
    /// or the end for a document cut short; nil when it says neither.
    static func jsonErrorOffset(_ error: Error, documentBytes: Int) -> Int? {
        let text = jsonReason(error)
        if let match = text.firstMatch(of: /around character (\d+)/) { return Int(match.1) }
        return text.localizedCaseInsensitiveContains("end of file") ? Swift.max(0, documentBytes - 1) : nil
    }

    private static func jsonReason(_ error: Error) -> String {
        let nsError = error as NSError
        if let debug = nsError.userInfo[NSDebugDescriptionErrorKey] as? String { return debug }
        return nsError.localizedDescription
    }
}

/// What `InputReader` yields, in input order.
package enum InputEvent: Sendable, Hashable {
    case item(InputItem)
    case problem(InputProblem)
    /// A file of a folder, or a path on standard input, that is no media: passed over.
    case skipped(SkippedFile)
    /// A push with no media (a text-only notification): nothing to prepare, and nothing wrong.
    case noMedia(InputProblem)
}

/// A bad line or unreadable input, reported without stopping the rest.
///
///     InputProblem(source: "list.txt", line: 12, message: "not a URL: 'htp:/x' (expected http:// or https://)")
///     // description: "list.txt:12: not a URL: 'htp:/x' (expected http:// or https://)"
package struct InputProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem: the word a manifest's `failure` and "top reasons" group it by.
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A path, or a line of it, that could not be opened or read.
        case unreadable
        /// UTF-16, or a line that is not UTF-8.
        case encoding
        /// Binary bytes on standard input.
        case binary
        /// A source that is neither media nor a list.
        case notAnInput = "not-an-input"
        /// A JSON document over the size read whole.
        case tooLarge = "too-large"
        /// JSON that does not parse, or is not an object.
        case json
        /// A payload or JSON line with no attachment URL in any convention.
        case noURL = "no-url"
        /// A line over the line limit.
        case tooLong = "too-long"
        /// A line that is not `URL [media_type]`.
        case badLine = "bad-line"
        /// A URL that is not one (`URLCheck`).
        case badURL = "bad-url"
        /// A folder without a media file.
        case emptyFolder = "empty-folder"
    }

    package var source: String
    /// 1-based; `0` when the problem concerns the whole source (cannot open, not JSON, …).
    package var line: Int
    package var kind: Kind
    package var message: String

    package init(source: String, line: Int, kind: Kind, message: String) {
        self.source = source
        self.line = line
        self.kind = kind
        self.message = message
    }

    package var description: String {
        line > 0 ? "\(source):\(line): \(message)" : "\(source): \(message)"
    }
}

/// A file passed over because it is no media (`FileKind`): found in a folder, or named on
/// standard input. Reported with what it looks like, never with its content.
public struct SkippedFile: Sendable, Hashable {
    /// The INPUT it was found through: the folder, or `-`.
    public var source: String
    /// The file's path.
    public var path: String
    /// What its first bytes look like.
    public var looksLike: ContentGuess
}
