import Foundation
import ImageCodecs
import MediaTypes

/// The encoded bytes the processor works from. The body stays in `data` (the decoders read it
/// in place); a JPEG's marker segments up to its first scan are copied to `[UInt8]` once here,
/// for the header read and the Exif read, which need nothing after them.
///
///     let input = EncodedInput(data, format: .jpeg)
///     let info = try input.readInfo()
///     input.jpeg   // SOI ... SOS: a few KB to a few hundred (Exif, ICC), not the body
struct EncodedInput {
    let data: Data
    let format: MediaFormat
    /// JPEG only: the bytes from SOI to the end of the first SOS segment (or EOI), or the whole
    /// file when its markers cannot be walked (so a broken header fails exactly as it always
    /// has).
    let jpeg: [UInt8]?

    /// The first guess at a JPEG header's length: Exif and ICC segments usually fit.
    static let headerGuess = 64 * 1024

    init(_ data: Data, format: MediaFormat) {
        self.data = data
        self.format = format
        jpeg = format == .jpeg ? Self.jpegHeader(data) : nil
    }

    func readInfo() throws(CodecError) -> ImageInfo {
        if let jpeg { return try JPEGCodec.readInfo(bytes: jpeg) }
        return try ImageCodecs.readInfo(data, format: format)
    }

    /// The marker segments of a JPEG up to and including its first SOS (or EOI): a prefix that
    /// doubles until the walk ends inside it.
    /// - Complexity: O(header bytes), at most twice over.
    static func jpegHeader(_ data: Data) -> [UInt8] {
        var length = min(data.count, headerGuess)
        while true {
            let prefix = [UInt8](data.prefix(length))
            do {
                guard let last = try JPEGSegments.read(prefix).last else { return [UInt8](data) }
                return Array(prefix[..<last.payloadRange.upperBound])
            } catch .truncated where length < data.count {
                length = min(data.count, length * 2)
            } catch {
                return length == data.count ? prefix : [UInt8](data)
            }
        }
    }
}
