import Foundation

/// Finds attachment URLs in a decoded push payload by the conventions senders use
/// (attachment-rules.md, "Where payloads put the attachment").
///
///     let payload = ["aps": ["mutable-content": 1], "data": ["attachment": "https://x/a.jpg", "media_type": "image"]]
///     PayloadConventions.attachments(in: payload)
///     // [Found(url: "https://x/a.jpg", mediaType: "image", id: nil, convention: "fcm")]
///
/// Every object in the payload is searched (depth ≤ 16, keys in sorted order), so the keys may
/// sit at the top level, under `data`, `notification`, `message.apns`, `custom` and so on.
/// At each object:
///
/// | key                                   | convention          | type hint                  |
/// |---------------------------------------|---------------------|----------------------------|
/// | `attachment` (string, or `{url}`)      | `fcm`               | sibling `media_type`       |
/// | `attachment-url`                       | `attachment-url`    | sibling `media_type`       |
/// | `media_url`                            | `media_url`         | sibling `media_type`       |
/// | `fcm_options.image`                    | `fcm_options`       | —                          |
/// | `notification.image`                   | `fcm_notification`  | —                          |
/// | `att` (map id → URL)                   | `onesignal`         | — (the key becomes `id`)   |
/// | `com.urbanairship.media_attachment.url` (string or array) | `airship` | `options.type`/`media_type`/`mime_type` |
/// | `cioImage`                             | `customerio`        | —                          |
/// | `ct_mediaUrl`                          | `clevertap`         | sibling `ct_mediaType`     |
/// | `mp_media_url`                         | `mixpanel`          | —                          |
///
/// A URL found twice in one payload is reported once (the first convention wins).
/// Values are returned as written; `InputReader` validates them.
public enum PayloadConventions {
    public struct Found: Sendable, Hashable {
        public var url: String
        public var mediaType: String?
        public var id: String?
        /// nil for an explicit `{"url": …}` object.
        public var convention: String?
    }

    static let maxDepth = 16
    static let maxFound = 256

    public static func attachments(in payload: Any) -> [Found] {
        var found: [Found] = []
        var seen: Set<String> = []
        walk(payload, depth: 0) { item in
            guard found.count < maxFound, seen.insert(item.url).inserted else { return }
            found.append(item)
        }
        return found
    }

    /// One input object, from a JSON line or a JSON document: `{"url", "media_type", "id"}` when
    /// it has a `url` key, else whatever the conventions find. Returns the items, or why none.
    static func items(inInputObject object: [String: Any]) -> Result<[Found], InputObjectProblem> {
        if let value = object["url"] {
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
            return .failure(.init(message: "no attachment URL found (looked for \(conventionKeys))"))
        }
        return .success(found)
    }

    struct InputObjectProblem: Error {
        var message: String
    }

    static let conventionKeys =
        "url, attachment, attachment-url, media_url, fcm_options.image, notification.image, att, "
        + "com.urbanairship.media_attachment, cioImage, ct_mediaUrl, mp_media_url"

    private static func walk(_ value: Any, depth: Int, _ emit: (Found) -> Void) {
        guard depth <= maxDepth else { return }
        if let array = value as? [Any] {
            for element in array { walk(element, depth: depth + 1, emit) }
            return
        }
        guard let object = value as? [String: Any] else { return }
        matches(in: object, emit)
        for key in object.keys.sorted() {
            walk(object[key]!, depth: depth + 1, emit)
        }
    }

    private static func matches(in object: [String: Any], _ emit: (Found) -> Void) {
        let mediaType = string(object["media_type"])
        if let url = string(object["attachment"]) ?? string((object["attachment"] as? [String: Any])?["url"]) {
            emit(Found(url: url, mediaType: mediaType, id: nil, convention: "fcm"))
        }
        if let url = string(object["attachment-url"]) {
            emit(Found(url: url, mediaType: mediaType, id: nil, convention: "attachment-url"))
        }
        if let url = string(object["media_url"]) {
            emit(Found(url: url, mediaType: mediaType, id: nil, convention: "media_url"))
        }
        if let url = string((object["fcm_options"] as? [String: Any])?["image"]) {
            emit(Found(url: url, mediaType: nil, id: nil, convention: "fcm_options"))
        }
        if let url = string((object["notification"] as? [String: Any])?["image"]) {
            emit(Found(url: url, mediaType: nil, id: nil, convention: "fcm_notification"))
        }
        if let map = object["att"] as? [String: Any] {
            for key in map.keys.sorted() {
                if let url = string(map[key]) {
                    emit(Found(url: url, mediaType: nil, id: key, convention: "onesignal"))
                }
            }
        }
        if let airship = object["com.urbanairship.media_attachment"] as? [String: Any] {
            let options = airship["options"] as? [String: Any] ?? [:]
            let hint =
                string(options["type"]) ?? string(options["media_type"]) ?? string(options["mime_type"])
                ?? string(options["UNNotificationAttachmentOptionsTypeHintKey"])
            let urls: [Any] = (airship["url"] as? [Any]) ?? [airship["url"] as Any]
            for url in urls.compactMap(string) {
                emit(Found(url: url, mediaType: hint, id: nil, convention: "airship"))
            }
        }
        if let url = string(object["cioImage"]) {
            emit(Found(url: url, mediaType: nil, id: nil, convention: "customerio"))
        }
        if let url = string(object["ct_mediaUrl"]) {
            emit(Found(url: url, mediaType: string(object["ct_mediaType"]), id: nil, convention: "clevertap"))
        }
        if let url = string(object["mp_media_url"]) {
            emit(Found(url: url, mediaType: nil, id: nil, convention: "mixpanel"))
        }
    }

    /// A non-empty trimmed string, or nil.
    static func string(_ value: Any?) -> String? {
        guard let text = value as? String else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
