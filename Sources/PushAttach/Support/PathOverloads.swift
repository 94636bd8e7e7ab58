import Foundation
import MediaTypes
import SystemSupport

// The same calls with a file-system path where the main form takes a `URL`, and bytes as
// `[UInt8]` where it takes `Data`: servers hold both. `prepare` takes a folder's `URL` only, so
// its forms stay few.

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
