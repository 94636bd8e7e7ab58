import Foundation

/// Finds attachment URLs in a decoded push payload by the conventions senders use
/// (attachment-rules.md, "Where payloads put the attachment").
///
///     let payload = ["aps": ["mutable-content": 1], "data": ["attachment": "https://x/a.jpg", "media_type": "image"]]
///     PayloadConventions.attachments(in: payload)
///     // [Found(url: "https://x/a.jpg", mediaType: "image", id: nil, convention: "fcm")]
///
/// Every object in the payload is searched (at any depth, keys in sorted order), so the keys may
/// sit at the top level, under `data`, `notification`, `message.apns`, `custom` and so on.
/// At each object the conventions of `all` are tried in order; that table is also what
/// `pushattach prepare --help` lists, with an example each.
///
/// One push gives one item per distinct URL: a URL found twice (FCM v1 puts the same image in
/// `notification.image` and `apns.fcm_options.image`) is reported once, the first convention
/// winning. URLs are compared as RFC 3986 normalizes them (scheme and host in lower case, no
/// default port, no fragment), so `HTTPS://CDN.example:443/a.jpg#x` is `https://cdn.example/a.jpg`.
/// Values are returned as written; their readers (the batch's inputs, the cache) validate them.
package enum PayloadConventions {
    package struct Found: Sendable, Hashable {
        package var url: String
        package var mediaType: String?
        package var id: String?
        /// nil for an explicit `{"url": …}` object.
        package var convention: String?
    }

    /// One way senders put an attachment's URL in a push.
    package struct Convention: Sendable {
        /// The key as help shows it: `attachment`, `fcm_options.image`, `att`.
        package let key: String
        /// The name items found this way carry (the manifest's `convention`); nil for `url`.
        package let name: String?
        /// Who sends it so, and where the type hint comes from.
        package let summary: String
        /// A smallest payload using it, as one line of JSON without spaces (one word, so help never
        /// breaks it).
        package let example: String
        /// The items found at one object of the payload (not its children).
        package let match: @Sendable ([String: Any]) -> [Found]
    }

    /// Values visited in one payload at most (JSON nesting has no depth limit here).
    package static let maxNodes = 1_000_000
    package static let maxFound = 256
    /// The example URL of `all`'s examples.
    package static let exampleURL = "https://cdn.example/a.jpg"

    /// Every convention, in the order they are tried. `url` is handled apart: an input object
    /// with a `url` key is that one item, and is not searched further.
    package static let all: [Convention] = [
        Convention(
            key: "url", name: nil,
            summary:
                "An explicit item (a JSON line or an element of a JSON array), with an optional media_type and id; the object is not searched further.",
            example: #"{"url":"\#(exampleURL)","media_type":"image","id":"a1"}"#,
            match: { _ in [] }),
        Convention(
            key: "attachment", name: "fcm",
            summary: "FCM data messages: a URL, or an object with a url; type hint from the sibling media_type.",
            example: #"{"data":{"attachment":"\#(exampleURL)","media_type":"image"}}"#,
            match: { object in
                let url = string(object["attachment"]) ?? string((object["attachment"] as? [String: Any])?["url"])
                return url.map { [Found(url: $0, mediaType: string(object["media_type"]), id: nil, convention: "fcm")] }
                    ?? []
            }),
        Convention(
            key: "attachment-url", name: "attachment-url",
            summary: "APNs payloads for an app group, Iterable; type hint from the sibling media_type.",
            example: #"{"attachment-url":"\#(exampleURL)"}"#,
            match: { object in
                sibling(object, "attachment-url", hint: "media_type", convention: "attachment-url")
            }),
        Convention(
            key: "media_url", name: "media_url",
            summary: "Generic rich push; type hint from the sibling media_type.",
            example: #"{"media_url":"\#(exampleURL)","media_type":"image"}"#,
            match: { object in sibling(object, "media_url", hint: "media_type", convention: "media_url") }),
        Convention(
            key: "fcm_options.image", name: "fcm_options",
            summary: "FCM v1 messages for APNs; the same URL as notification.image gives one item.",
            example: #"{"message":{"apns":{"fcm_options":{"image":"\#(exampleURL)"}}}}"#,
            match: { object in
                string((object["fcm_options"] as? [String: Any])?["image"]).map {
                    [Found(url: $0, mediaType: nil, id: nil, convention: "fcm_options")]
                } ?? []
            }),
        Convention(
            key: "notification.image", name: "fcm_notification",
            summary: "FCM v1 notification messages (also android.notification.image).",
            example: #"{"message":{"notification":{"image":"\#(exampleURL)"}}}"#,
            match: { object in
                string((object["notification"] as? [String: Any])?["image"]).map {
                    [Found(url: $0, mediaType: nil, id: nil, convention: "fcm_notification")]
                } ?? []
            }),
        Convention(
            key: "att", name: "onesignal",
            summary:
                "OneSignal: a map from id to URL; each key becomes the item's id (OneSignal's attachment identifier). Values that are not URLs are not attachments; a type, media_type or mime_type among them is the type hint.",
            example: #"{"att":{"id":"\#(exampleURL)","type":"jpg"}}"#,
            match: { object in
                guard let map = object["att"] as? [String: Any] else { return [] }
                let hint = ["type", "media_type", "mime_type"].lazy.compactMap { string(map[$0]) }.first {
                    !looksLikeURL($0)
                }
                return map.keys.sorted().compactMap { key in
                    // OneSignal's SDK reads a value that is not a URL as a resource in the app's
                    // bundle: nothing a server can fetch.
                    guard let url = string(map[key]), looksLikeURL(url) else { return nil }
                    return Found(url: url, mediaType: hint, id: key, convention: "onesignal")
                }
            }),
        Convention(
            key: "ios_attachments", name: "onesignal_rest",
            summary:
                "OneSignal's REST API (create notification): a map from id to URL, as att; each key becomes the item's id.",
            example: #"{"ios_attachments":{"id1":"\#(exampleURL)"}}"#,
            match: { object in
                guard let map = object["ios_attachments"] as? [String: Any] else { return [] }
                return map.keys.sorted().compactMap { key in
                    guard let url = string(map[key]), looksLikeURL(url) else { return nil }
                    return Found(url: url, mediaType: nil, id: key, convention: "onesignal_rest")
                }
            }),
        Convention(
            key: "data.image", name: "fcm_data",
            summary: "FCM data messages that name the image in data.image (FCM's own key for notification images).",
            example: #"{"message":{"data":{"image":"\#(exampleURL)"}}}"#,
            match: { object in
                string((object["data"] as? [String: Any])?["image"]).map {
                    [Found(url: $0, mediaType: nil, id: nil, convention: "fcm_data")]
                } ?? []
            }),
        Convention(
            key: "asset_url", name: "braze",
            summary: "Braze's REST apple_push object; type hint from the sibling asset_file_type (jpg, png, gif, mp4, ...).",
            example: #"{"apple_push":{"asset_url":"\#(exampleURL)","asset_file_type":"jpg"}}"#,
            match: { object in sibling(object, "asset_url", hint: "asset_file_type", convention: "braze") }),
        Convention(
            key: "com.urbanairship.media_attachment", name: "airship",
            summary:
                "Airship: url, a string or an array of them; type hint from options.type, media_type or mime_type.",
            example: #"{"com.urbanairship.media_attachment":{"url":["\#(exampleURL)"],"options":{"type":"jpg"}}}"#,
            match: { object in
                guard let airship = object["com.urbanairship.media_attachment"] as? [String: Any] else { return [] }
                let options = airship["options"] as? [String: Any] ?? [:]
                let hint =
                    string(options["type"]) ?? string(options["media_type"]) ?? string(options["mime_type"])
                    ?? string(options["UNNotificationAttachmentOptionsTypeHintKey"])
                let urls: [Any] = (airship["url"] as? [Any]) ?? [airship["url"] as Any]
                return urls.compactMap(string).map { Found(url: $0, mediaType: hint, id: nil, convention: "airship") }
            }),
        Convention(
            key: "cioImage", name: "customerio", summary: "Customer.io.",
            example: #"{"cioImage":"\#(exampleURL)"}"#,
            match: { object in sibling(object, "cioImage", hint: nil, convention: "customerio") }),
        Convention(
            key: "ct_mediaUrl", name: "clevertap", summary: "CleverTap; type hint from the sibling ct_mediaType.",
            example: #"{"ct_mediaUrl":"\#(exampleURL)","ct_mediaType":"image"}"#,
            match: { object in sibling(object, "ct_mediaUrl", hint: "ct_mediaType", convention: "clevertap") }),
        Convention(
            key: "mp_media_url", name: "mixpanel", summary: "Mixpanel.",
            example: #"{"mp_media_url":"\#(exampleURL)"}"#,
            match: { object in sibling(object, "mp_media_url", hint: nil, convention: "mixpanel") }),
    ]

    /// The URLs `payload` names, one per distinct URL, in the order the conventions find them.
    package static func attachments(in payload: Any) -> [Found] {
        var found: [Found] = []
        var seen: Set<String> = []
        walk(payload) { item in
            guard found.count < maxFound, seen.insert(identity(of: item.url)).inserted else { return }
            found.append(item)
        }
        return found
    }

    /// One input object, from a JSON line or a JSON document: `{"url", "media_type", "id"}` when
    /// it has a `url` key and is not a push (in a push, `url` is the link opened on tap:
    /// OneSignal's create-notification body has one beside `ios_attachments`), else whatever the
    /// conventions find. Returns the items, or why none.
    package static func items(inInputObject object: [String: Any]) -> Result<[Found], InputObjectProblem> {
        if let value = object["url"], !isPush(object) {
            guard let url = value as? String else { return .failure(.init(message: "\"url\" is not a string")) }
            let id: String? =
                switch object["id"] {
                case let text as String: text
                case let number as NSNumber: number.stringValue
                default: nil
                }
            let trimmed = url.trimmingCharacters(in: .whitespaces)
            return .success([Found(url: trimmed, mediaType: string(object["media_type"]), id: id, convention: nil)])
        }
        let found = attachments(in: object)
        if found.isEmpty {
            // A push that names a URL under a key no convention has (Expo's richContent.image,
            // image_url) is a problem to see, not a text-only notification.
            return .failure(
                .init(
                    message: "no attachment URL found (looked for \(conventionKeys))",
                    isPushWithoutMedia: isPush(object) && !containsURL(object)))
        }
        return .success(found)
    }

    package struct InputObjectProblem: Error {
        package var message: String
        /// The object is a push (it has an `aps`, `notification`, `message`, `data`, `contents`
        /// or `apple_push` key) that names no media: a text-only notification, not a mistake.
        package var isPushWithoutMedia = false
    }

    /// The key `prepare --rewrite` adds to a payload whose media the batch refused, with the
    /// reasons (the media's URL is removed): an extension that finds no URL says why from it.
    package static let refusalNoteKey = "pushattach_error"

    /// Keys that make an object a push payload (APNs, FCM, OneSignal's REST body, Braze's).
    package static let pushKeys = ["aps", "notification", "message", "data", "contents", "headings", "apple_push"]

    /// True for an object with one of `pushKeys`.
    package static func isPush(_ object: [String: Any]) -> Bool { pushKeys.contains { object[$0] != nil } }

    /// True when some string in `value` (at any depth) holds a scheme separator (`://`).
    package static func containsURL(_ value: Any) -> Bool {
        var found = false
        visit(value) { node in
            if let text = node as? String, text.contains("://") { found = true }
            return !found
        }
        return found
    }

    package static let conventionKeys = all.map(\.key).joined(separator: ", ")

    /// What makes two spellings of a URL one attachment: scheme and host in lower case, the
    /// scheme's default port and the fragment (never sent to the server) dropped, an empty path
    /// as `/`. Anything that does not parse is compared as written.
    ///
    ///     PayloadConventions.identity(of: "HTTPS://CDN.example:443/a.jpg#top")   // "https://cdn.example/a.jpg"
    package static func identity(of url: String) -> String {
        guard var components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else { return url }
        components.scheme = scheme
        components.host = host.lowercased()
        if (scheme == "http" && components.port == 80) || (scheme == "https" && components.port == 443) {
            components.port = nil
        }
        components.fragment = nil
        if components.path.isEmpty { components.path = "/" }
        return components.string ?? url
    }

    /// Calls the conventions at every object of `value` (`visit`'s order).
    private static func walk(_ value: Any, _ emit: (Found) -> Void) {
        visit(value) { node in
            if let object = node as? [String: Any] { for convention in all { convention.match(object).forEach(emit) } }
            return true
        }
    }

    /// Visits `value` and everything in it depth first, an object's keys in sorted order, with a
    /// stack of its own (a payload nested hundreds deep is searched, and cannot exhaust the
    /// thread's stack); stops when `body` returns false, or after `maxNodes` values.
    private static func visit(_ value: Any, _ body: (Any) -> Bool) {
        var stack: [Any] = [value]
        var visited = 0
        while let next = stack.popLast(), visited < maxNodes {
            visited += 1
            guard body(next) else { return }
            if let array = next as? [Any] {
                stack.append(contentsOf: array.reversed())
            } else if let object = next as? [String: Any] {
                for key in object.keys.sorted().reversed() { stack.append(object[key]!) }
            }
        }
    }

    /// `object[key]` as one item, its type hint from `object[hint]`.
    private static func sibling(_ object: [String: Any], _ key: String, hint: String?, convention: String) -> [Found] {
        guard let url = string(object[key]) else { return [] }
        return [Found(url: url, mediaType: hint.flatMap { string(object[$0]) }, id: nil, convention: convention)]
    }

    /// Meant as a URL (a typo in one is still reported): has a scheme separator, or starts as http.
    package static func looksLikeURL(_ text: String) -> Bool {
        text.contains("://") || text.lowercased().hasPrefix("http")
    }

    /// A non-empty trimmed string, or nil.
    package static func string(_ value: Any?) -> String? {
        guard let text = value as? String else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
