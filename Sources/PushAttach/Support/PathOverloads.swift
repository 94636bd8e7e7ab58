import Foundation
import MediaTypes
import SystemSupport

// The same calls with a file-system path where the main form takes a `URL`, and bytes as
// `[UInt8]` where it takes `Data`: servers hold both, and the five-line example reads the same
// either way.

extension AttachmentPreparer {
    /// `prepare(_:typeHint:into:)` into the folder at the path `folder`.
    ///
    ///     let a = try await AttachmentPreparer.shared.prepare(url, typeHint: "image", into: "/var/lib/push")
    public func prepare(_ url: URL, typeHint: String? = nil, into folder: String) async throws(AttachmentError)
        -> PreparedAttachment
    {
        try await prepare(url, typeHint: typeHint, into: URL(fileURLWithPath: folder))
    }

    /// `prepare(_:typeHint:into:)` of the URL text `url` into the folder at the path `folder`.
    public func prepare(_ url: String, typeHint: String? = nil, into folder: String) async throws(AttachmentError)
        -> PreparedAttachment
    {
        try await prepare(url, typeHint: typeHint, into: URL(fileURLWithPath: folder))
    }

    /// `prepare(_:into:)` (a batch) into the folder at the path `folder`.
    public func prepare(_ urls: [URL], into folder: String) -> AsyncStream<BatchResult> {
        prepare(urls, into: URL(fileURLWithPath: folder))
    }
}

extension AttachmentVerifier {
    /// `verify(fileAt:)` for the file at the path `path`.
    ///
    ///     let report = await AttachmentVerifier().verify(fileAt: "Images/cat.jpg")
    public func verify(fileAt path: String) async -> AttachmentReport {
        await verify(fileAt: URL(fileURLWithPath: path))
    }
}

extension Thumbnail {
    /// `image(from:maxSide:quality:)` from bytes held as `[UInt8]`.
    ///
    ///     let thumb = try await Thumbnail.image(from: [UInt8](data), maxSide: 256)
    public static func image(from bytes: [UInt8], maxSide: Int, quality: Int = 80) async throws(AttachmentError)
        -> Thumbnail
    {
        try await image(from: Data(bytes), maxSide: maxSide, quality: quality)
    }
}
