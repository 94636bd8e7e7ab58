import Foundation
import MediaTypes
import SystemSupport

extension AttachmentPreparer {
    /// Prepares a file on this machine into `folder`, as a downloaded one would be: its type
    /// from the bytes (the name's extension and `typeHint` are claims), checked, fitted,
    /// written under a new name. The file is read, never moved or changed.
    ///
    ///     let attachment = try await preparer.prepare(contentsOf: URL(fileURLWithPath: "/uploads/cat.heic"), into: folder)
    ///
    /// - Throws: `AttachmentError`: `.invalidURL` for a URL that is not a file URL;
    ///   `.downloadFailed` when the file cannot be read; otherwise as `prepare(_:typeHint:into:)`.
    public func prepare(contentsOf fileURL: URL, typeHint: String? = nil, into folder: URL)
        async throws(AttachmentError) -> PreparedAttachment
    {
        guard fileURL.isFileURL else {
            throw told(
                AttachmentError(
                    kind: .invalidURL, url: fileURL,
                    reason: "not a file URL: \(fileURL.absoluteString); prepare(_:into:) takes http and https URLs"),
                url: fileURL, requestID: nil)
        }
        let item = InputItem(url: fileURL.standardizedFileURL.absoluteString, mediaType: typeHint, source: "", line: 0)
        return try await run(item, sourceURL: fileURL, into: folder)
    }

    /// Prepares bytes already in memory (an upload, a body fetched by the caller's own client)
    /// into `folder`, as a download would be. `filename` names them: its extension is a claim
    /// about the type (the bytes decide), its base the attachment's name (`<UUID>-cat.jpg`).
    /// The result's `sourceURL` is `bytes:<filename>`.
    ///
    ///     let attachment = try await preparer.prepare(upload, filename: "cat.webp", into: folder)
    ///
    /// - Throws: `AttachmentError` as `prepare(_:typeHint:into:)` (`.tooLarge` over the cap of
    ///   their kind; nothing is fetched).
    public func prepare(_ bytes: Data, filename: String, typeHint: String? = nil, into folder: URL)
        async throws(AttachmentError) -> PreparedAttachment
    {
        let name = filename.split(separator: "/").last.map(String.init) ?? ""
        let encoded = (name.isEmpty ? "attachment" : name).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
        let source = URL(string: "bytes:" + (encoded ?? "attachment")) ?? URL(string: "bytes:attachment")!
        var item = InputItem(url: source.absoluteString, mediaType: typeHint, source: "", line: 0)
        item.body = bytes
        item.filename = name.isEmpty ? nil : name
        return try await run(item, sourceURL: source, into: folder)
    }
}
