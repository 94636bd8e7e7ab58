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
/// How an INPUT is read is decided by its content, never its extension:
/// 1. `-` is standard input; anything else is a path. A path that cannot be opened is one
///    problem; a folder gives its media files (`readFolder`).
/// 2. UTF-16 text (a BOM) is a problem. If the first bytes are known media magic or not UTF-8
///    text, a path is a local media file (one item, `file:///absolute/path`, line 0); on stdin
///    that is a problem.
/// 3. After an optional BOM and whitespace, a source starting with `[`, or with `{` whose first
///    line is not a whole JSON object, is one JSON document: a push payload (an object, or an
///    array of objects), read whole up to `maxDocumentBytes`. Each object is `{"url", "media_type",
///    "id"}` when it has `url`, else searched by `PayloadConventions`: one item per distinct URL.
///    Items report the line where their URL first appears in their object; a problem with an
///    object (not an object, no URL found), the line where it starts; invalid JSON, the line
///    the parser stopped on.
/// 4. Anything else is read line by line: blank lines and `#` comments (a whole line, or a
///    ` #…` tail after whitespace) are skipped; a line starting with `{` is a JSON object,
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
                return problem(input, 0, "cannot open: \(error.reason)")
            }
            reader = LineReader(descriptor: fd, name: input, maxLineBytes: options.maxLineBytes)
        }
        do throws(ContainerError) {
            // Up to the first newline (or 512 bytes): enough for magic and the UTF-8 check, and
            // a slow producer on stdin is not waited on for more than its first line.
            let head = try reader.peekFirstLine(limit: 512)
            if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) {
                return problem(input, 0, "UTF-16 text; save the list as UTF-8")
            }
            if !head.isEmpty, MediaInput.looksLikeMedia(head) {
                if input == "-" {
                    return problem(input, 0, "standard input holds binary data; expected a URL list or JSON")
                }
                let path = URL(fileURLWithPath: input).standardizedFileURL
                pending.append(.item(InputItem(url: path.absoluteString, source: input, line: 0, convention: "file")))
                return
            }
            if try isDocument(reader) {
                readDocument(from: reader)
            } else {
                current = reader
            }
        } catch {
            problem(input, 0, "cannot read: \(error)")
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
            return problem(source, 0, "cannot read: \(error)")
        }
        guard let bytes else {
            return problem(
                source, 0, "JSON document larger than \(options.maxDocumentBytes) bytes; split it or use JSON lines")
        }
        let locator = LineLocator(bytes)
        let json: Any
        do { json = try JSONSerialization.jsonObject(with: Data(bytes)) } catch {
            let line = Self.jsonErrorOffset(error, documentBytes: bytes.count).map { locator.line(atOffset: $0) } ?? 0
            return problem(source, line, "not valid JSON: \(Self.jsonReason(error))")
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
                problem(source, locator.line(atOffset: start), "\(place) is not an object")
                continue
            }
            switch PayloadConventions.items(inInputObject: object) {
            case .failure(let failure) where failure.isPushWithoutMedia:
                pending.append(
                    .noMedia(InputProblem(source: source, line: locator.line(atOffset: start), message: "\(place): no media")))
            case .failure(let failure):
                problem(source, locator.line(atOffset: start), "\(place): \(failure.message)")
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
            return problem(reader.name, lineNumber, "cannot read: \(error)")
        }
        guard let line else {
            current = nil
            return
        }
        lineNumber += 1
        switch line {
        case .tooLong(let size):
            problem(reader.name, lineNumber, "line too long: \(size) bytes (limit \(options.maxLineBytes))")
        case .text(var bytes):
            if lineNumber == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
            if bytes.last == 0x0D { bytes.removeLast() }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return problem(reader.name, lineNumber, "not UTF-8 text")
            }
            parseLine(text, source: reader.name, line: lineNumber)
        }
    }

    private func parseLine(_ raw: String, source: String, line: Int) {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if text.isEmpty || text.hasPrefix("#") { return }
        if text.hasPrefix("{") { return parseJSONLine(text, source: source, line: line) }

        switch localFile(text, source: source) {
        case .media(let local): return pending.append(.item(local))
        case .notMedia:
            return problem(
                source, line,
                "\(text) is a local file, but its first bytes are no image, audio or video format; only media files are read from standard input")
        case nil: break
        }
        let fields = Self.strippingComment(text).split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count <= 2 else {
            return problem(source, line, "expected 'URL [media_type]', found \(fields.count) fields")
        }
        emit(
            url: String(fields[0]), mediaType: fields.count == 2 ? String(fields[1]) : nil, id: nil,
            source: source, line: line, convention: nil)
    }

    private func parseJSONLine(_ text: String, source: String, line: Int) {
        let json: Any
        do { json = try JSONSerialization.jsonObject(with: Data(text.utf8)) } catch {
            return problem(source, line, "not valid JSON: \(Self.jsonReason(error))")
        }
        guard let object = json as? [String: Any] else { return problem(source, line, "JSON line is not an object") }
        switch PayloadConventions.items(inInputObject: object) {
        case .failure(let failure) where failure.isPushWithoutMedia:
            pending.append(.noMedia(InputProblem(source: source, line: line, message: "no media")))
        case .failure(let failure): problem(source, line, failure.message)
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

    /// A folder INPUT, as `mogrify` takes one: every media file in it (by its first bytes; lists,
    /// notes and hidden files are passed over), in sorted order, each one item; its sub-folders
    /// too with `recursiveFolders`. A folder with no media file is one problem.
    private func readFolder(_ folder: String) {
        // A folder named through a link is listed where the link points.
        let base = URL(fileURLWithPath: folder).resolvingSymlinksInPath().standardizedFileURL
        var options: FileManager.DirectoryEnumerationOptions = [.skipsHiddenFiles]
        if !self.options.recursiveFolders { options.insert(.skipsSubdirectoryDescendants) }
        guard let walker = FileManager.default.enumerator(
            at: base, includingPropertiesForKeys: [.isRegularFileKey], options: options)
        else { return problem(folder, 0, "cannot list the folder") }
        var files: [URL] = []
        for case let url as URL in walker
        where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            files.append(url.standardizedFileURL)
        }
        var found = 0
        for file in files.sorted(by: { $0.path < $1.path }) where Self.isMediaFile(file.path) {
            found += 1
            pending.append(.item(InputItem(url: file.absoluteString, source: folder, line: 0, convention: "file")))
        }
        if found == 0 {
            let hint = self.options.recursiveFolders ? "" : " (its sub-folders are searched with --recursive)"
            problem(folder, 0, "is a folder with no media file\(hint)")
        }
    }

    /// True when the file at `path` starts with the signature of a format the sniffer knows:
    /// an archive, a database or a document in the folder is passed over, not rejected.
    static func isMediaFile(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: Sniffer.identifyPrefixLength), !head.isEmpty else { return false }
        return Sniffer.identify(prefix: Array(head)) != .unknown
    }

    /// What a line of standard input that names a regular file is.
    private enum LocalFile {
        /// A media file: its `file://` item.
        case media(InputItem)
        /// A file whose first bytes are no media format: said as such, never read further (a
        /// `find` over a home folder must not put a `.netrc` into a manifest).
        case notMedia
    }

    /// A line of standard input that names a local file (`find … | pushattach prepare -`); nil
    /// for anything else. Only standard input is read so (the user's own pipeline): a list file
    /// from elsewhere cannot make a run read local files.
    private func localFile(_ field: String, source: String) -> LocalFile? {
        guard source == "-", !field.contains("://"), (try? SystemCall.status(atPath: field))?.kind == .regular
        else { return nil }
        guard Self.isMediaFile(field) else { return .notMedia }
        let url = URL(fileURLWithPath: field).standardizedFileURL
        return .media(InputItem(url: url.absoluteString, source: source, line: lineNumber, convention: "file"))
    }

    private func emit(url: String, mediaType: String?, id: String?, source: String, line: Int, convention: String?) {
        if let reason = URLCheck.problem(url, maxBytes: options.maxURLBytes) {
            return problem(source, line, reason)
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

    private func problem(_ source: String, _ line: Int, _ message: String) {
        pending.append(.problem(InputProblem(source: source, line: line, message: message)))
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
    /// A push with no media (a text-only notification): nothing to prepare, and nothing wrong.
    case noMedia(InputProblem)
}

/// A bad line or unreadable input, reported without stopping the rest.
///
///     InputProblem(source: "list.txt", line: 12, message: "not a URL: 'htp:/x' (expected http:// or https://)")
///     // description: "list.txt:12: not a URL: 'htp:/x' (expected http:// or https://)"
package struct InputProblem: Error, Sendable, Hashable, CustomStringConvertible {
    package var source: String
    /// 1-based; `0` when the problem concerns the whole source (cannot open, not JSON, …).
    package var line: Int
    package var message: String

    package init(source: String, line: Int, message: String) {
        self.source = source
        self.line = line
        self.message = message
    }

    package var description: String {
        line > 0 ? "\(source):\(line): \(message)" : "\(source): \(message)"
    }
}
