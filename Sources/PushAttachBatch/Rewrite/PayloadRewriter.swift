import Foundation
import PushAttach
import PushPayloads
import SystemSupport

/// Rewrites push payloads to point at the files a batch prepared: each media URL becomes
/// `baseURL` + the file's path in the folder, and the type hint is set in the convention's own
/// key. What the batch refused is removed from its payload, with a `pushattach_error` note (or
/// the payload is dropped). The output is one payload per line (JSON lines), in input order.
///
///     before: {"aps":{"mutable-content":1},"media_url":"https://cms.example/cat.webp"}
///     after:  {"aps":{"mutable-content":1},"media_type":"public.jpeg",
///              "media_url":"https://cdn.example/push/Images/0AF3…-cat.jpg"}
///
/// Per convention (`PayloadConventions.all`):
/// - `url`, `attachment`, `attachment-url`, `media_url`: the URL replaced, `media_type` set to
///   the UTI (`public.jpeg`), as `UNNotificationAttachmentOptionsTypeHintKey` wants it.
/// - `fcm_options.image`, `notification.image`, `data.image`, `cioImage`, `mp_media_url`,
///   `ios_attachments`: the URL replaced; these conventions have no type key (the file's
///   extension says it).
/// - `att` (OneSignal): the URL replaced, `type` set to the file's extension (`jpg`).
/// - `com.urbanairship.media_attachment`: each URL replaced, `options.type` set to the extension.
/// - `ct_mediaUrl`: the URL replaced, `ct_mediaType` set to the category (`image`, `video`,
///   `audio`). `asset_url` (Braze): the URL replaced, `asset_file_type` set to the extension.
package enum PayloadRewriter {
    /// What became of one source URL in the batch.
    package enum Outcome: Sendable, Hashable {
        /// Written: the file's path in the folder, its UTI, extension and category.
        case prepared(file: String, uti: String, fileExtension: String, category: String)
        /// Rejected or failed, with the reason.
        case refused(reason: String)
    }

    /// How a rewrite went.
    package struct Counts: Sendable, Hashable {
        /// Payloads written with every media URL replaced (or with no media at all).
        package var rewritten = 0
        /// Payloads written with refused media removed and a `pushattach_error` note.
        package var withErrors = 0
        /// Payloads left out (`dropRefused`).
        package var dropped = 0
        /// Inputs passed over: URL lists and local files, which are not payloads.
        package var notPayloads = 0
        package init() {}
    }

    /// The outcome of each source URL in `manifest`, by `PayloadConventions.identity`.
    package static func outcomes(manifest: URL) throws(ReportError) -> [String: Outcome] {
        let fd: Int32
        do { fd = try SystemCall.open(manifest.path, .readOnly) } catch {
            if case .system(_, _, ENOENT) = error { throw .noManifest(path: manifest.path, journal: false) }
            throw .container(error)
        }
        defer { try? SystemCall.close(fd, path: manifest.path) }
        var outcomes: [String: Outcome] = [:]
        _ = try ManifestStream.read(fd, path: manifest.path) { entry throws(ReportError) in
            let key = PayloadConventions.identity(of: entry.input)
            if entry.status == .prepared, let file = entry.file, let uti = entry.uti {
                let ext = (file as NSString).pathExtension
                outcomes[key] = .prepared(file: file, uti: uti, fileExtension: ext, category: entry.category ?? "image")
            } else if outcomes[key] == nil {
                outcomes[key] = .refused(reason: entry.reason ?? entry.status.rawValue)
            }
        }
        return outcomes
    }

    /// Rewrites every payload of `inputs` (JSON documents and JSON lines; other inputs are
    /// passed over) into `output`, one JSON line each.
    package static func rewrite(
        inputs: [String], outcomes: [String: Outcome], baseURL: String, dropRefused: Bool, output: URL
    ) throws(ContainerError) -> Counts {
        let file = try AtomicFile(output)
        var counts = Counts()
        let base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        for input in inputs {
            var sawPayload = false
            let readable = forEachPayload(in: input) { payload throws(ContainerError) in
                sawPayload = true
                var errors: [String] = []
                guard var object = rewrite(payload, base: base, outcomes: outcomes, errors: &errors) as? [String: Any]
                else { return }
                if !errors.isEmpty {
                    if dropRefused {
                        counts.dropped += 1
                        return
                    }
                    object[PayloadConventions.refusalNoteKey] = errors.joined(separator: "; ")
                    counts.withErrors += 1
                } else {
                    counts.rewritten += 1
                }
                guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
                else { return }
                line.append(0x0A)
                try file.append(line)
            }
            if !(try readable.get()) || !sawPayload { counts.notPayloads += 1 }
        }
        try file.commit()
        return counts
    }

    /// Calls `body` with each payload of one input, in order: a JSON document's object (or its
    /// array's objects; a document up to `InputReader.Options().maxDocumentBytes`, as the reader
    /// takes), or each JSON line's object, read line by line. Returns false for what is not
    /// payloads: standard input (read once, by the batch), a local media file, a file that cannot
    /// be opened.
    static func forEachPayload(
        in path: String, _ body: ([String: Any]) throws(ContainerError) -> Void
    ) -> Result<Bool, ContainerError> {
        guard path != "-", let fd = try? SystemCall.open(path, .readOnly) else { return .success(false) }
        let reader = LineReader(descriptor: fd, name: path, maxLineBytes: InputReader.Options().maxLineBytes)
        do throws(ContainerError) {
            let head = try reader.peekFirstLine(limit: 512)
            if !head.isEmpty, MediaInput.looksLikeMedia(head) { return .success(false) }
            let limit = InputReader.Options().maxDocumentBytes
            if let size = try? SystemCall.status(fd, path: path).size, size <= limit,
                let first = head.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }),
                first == UInt8(ascii: "[") || first == UInt8(ascii: "{"),
                let whole = try? JSONSerialization.jsonObject(with: Data(try reader.readToEnd(limit: limit) ?? []))
            {
                if let object = whole as? [String: Any] { try body(object) }
                for case let object as [String: Any] in (whole as? [Any]) ?? [] { try body(object) }
                return .success(true)
            }
            // JSON lines, from the start again (the head was consumed by the checks above).
            let lines = LineReader(
                descriptor: try SystemCall.open(path, .readOnly), name: path, maxLineBytes: InputReader.Options().maxLineBytes)
            while let line = try lines.nextLine() {
                guard case .text(var bytes) = line else { continue }
                if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
                guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { continue }
                try body(object)
            }
            return .success(true)
        } catch {
            return .failure(error)
        }
    }

    // MARK: - One payload

    /// `value` with every media URL the conventions name rewritten (recursively, as
    /// `PayloadConventions` searches); refused media removed, its reason added to `errors`.
    static func rewrite(_ value: Any, base: String, outcomes: [String: Outcome], errors: inout [String]) -> Any {
        var rewriter = ObjectRewriter(base: base, outcomes: outcomes)
        let result = rewriter.rewrite(value, topLevel: true)
        errors += rewriter.errors
        return result
    }

    /// The walk over one payload (an explicit stack would be kinder to a very deep payload; a
    /// payload the reader could parse is at most as deep as JSONSerialization allows).
    struct ObjectRewriter {
        let base: String
        let outcomes: [String: Outcome]
        var errors: [String] = []

        mutating func rewrite(_ value: Any, topLevel: Bool = false) -> Any {
            if let array = value as? [Any] { return array.map { rewrite($0) } }
            guard var object = value as? [String: Any] else { return value }
            if topLevel, object["url"] is String, !PayloadConventions.isPush(object) {
                replace(&object, "url", hint: Hint(key: "media_type", value: .uti))
                return object
            }
            apply(&object)
            for key in object.keys.sorted() {
                object[key] = rewrite(object[key]!)
            }
            return object
        }

        /// The conventions at one object (not its children), as `PayloadConventions.all` finds them.
        mutating func apply(_ object: inout [String: Any]) {
            hintsSet = []
            if var nested = object["attachment"] as? [String: Any], nested["url"] is String {
                let gone = replace(&nested, "url", hint: nil)
                object["attachment"] = gone ? nil : nested
                if gone { object["media_type"] = nil } else if let uti = lastPrepared?.uti { object["media_type"] = uti }
            } else {
                replace(&object, "attachment", hint: Hint(key: "media_type", value: .uti))
            }
            replace(&object, "attachment-url", hint: Hint(key: "media_type", value: .uti))
            replace(&object, "media_url", hint: Hint(key: "media_type", value: .uti))
            replace(&object, "cioImage", hint: nil)
            replace(&object, "mp_media_url", hint: nil)
            replace(&object, "ct_mediaUrl", hint: Hint(key: "ct_mediaType", value: .category))
            replace(&object, "asset_url", hint: Hint(key: "asset_file_type", value: .fileExtension))
            for container in ["fcm_options", "notification", "data"] {
                guard var nested = object[container] as? [String: Any], nested["image"] is String else { continue }
                replace(&nested, "image", hint: nil)
                object[container] = nested
            }
            for map in ["att", "ios_attachments"] {
                guard var entries = object[map] as? [String: Any] else { continue }
                for key in entries.keys.sorted() {
                    guard let url = entries[key] as? String, PayloadConventions.looksLikeURL(url) else { continue }
                    replace(&entries, key, hint: map == "att" ? Hint(key: "type", value: .fileExtension) : nil)
                }
                object[map] = entries.isEmpty ? nil : entries
            }
            airship(&object)
        }

        mutating func airship(_ object: inout [String: Any]) {
            let key = "com.urbanairship.media_attachment"
            guard var airship = object[key] as? [String: Any] else { return }
            let urls = (airship["url"] as? [Any]) ?? [airship["url"] as Any]
            var kept: [String] = []
            for case let url as String in urls {
                switch outcome(url) {
                case .prepared(let file, _, let ext, _)?:
                    kept.append(link(file))
                    var options = airship["options"] as? [String: Any] ?? [:]
                    options["type"] = ext
                    airship["options"] = options
                case .refused(let reason)?: note("\(url): \(reason)")
                case nil: kept.append(url)
                }
            }
            airship["url"] = airship["url"] is [Any] ? kept : kept.first
            object[key] = kept.isEmpty ? nil : airship
        }

        /// The last prepared outcome `replace` applied (for a hint set outside the object).
        var lastPrepared: Prepared?
        /// Hint keys set in the object being rewritten (`apply` starts it afresh per object).
        var hintsSet: Set<String> = []

        /// Adds a refusal to `errors`, once.
        mutating func note(_ text: String) {
            if !errors.contains(text) { errors.append(text) }
        }

        struct Prepared {
            var uti: String
            var fileExtension: String
            var category: String
        }

        /// Where a convention keeps its type hint, and what it holds.
        struct Hint {
            enum Value { case uti, fileExtension, category }
            var key: String
            var value: Value

            func text(_ prepared: Prepared) -> String {
                switch value {
                case .uti: prepared.uti
                case .fileExtension: prepared.fileExtension
                case .category: prepared.category
                }
            }
        }

        /// Replaces the URL at `object[key]`, setting `hint` from the prepared file; a refused
        /// URL removes the key (and its hint). Returns true when the key was removed.
        @discardableResult
        mutating func replace(
            _ object: inout [String: Any], _ key: String, hint: Hint?
        ) -> Bool {
            lastPrepared = nil
            guard let url = object[key] as? String else { return false }
            switch outcome(url) {
            case .prepared(let file, let uti, let ext, let category)?:
                let prepared = Prepared(uti: uti, fileExtension: ext, category: category == "movie" ? "video" : category)
                object[key] = link(file)
                if let hint {
                    object[hint.key] = hint.text(prepared)
                    hintsSet.insert(hint.key)
                }
                lastPrepared = prepared
                return false
            case .refused(let reason)?:
                note("\(url): \(reason)")
                object[key] = nil
                // A hint key another URL of this object set (media_type beside two URLs) stays.
                if let hint, !hintsSet.contains(hint.key) { object[hint.key] = nil }
                return true
            case nil:
                return false
            }
        }

        /// What the batch did with `url`: its outcome; refused when the reader refused it (not
        /// http(s), too long: no entry names the URL); nil when the batch never saw it.
        func outcome(_ url: String) -> Outcome? {
            let trimmed = url.trimmingCharacters(in: .whitespacesAndNewlines)
            // Entries name URLs without their credentials.
            if let known = outcomes[PayloadConventions.identity(of: DisplayText.withoutCredentials(trimmed))] { return known }
            if let problem = URLCheck.problem(trimmed) { return .refused(reason: problem) }
            return nil
        }

        /// `base` + `file` with each path component percent-encoded (a name may keep non-ASCII
        /// letters and `+`, which a URL must not carry as they are).
        func link(_ file: String) -> String {
            var allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
            allowed.insert(charactersIn: "!$&'()*,;=:@")
            return base
                + file.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0) }.joined(separator: "/")
        }
    }
}
