import Foundation
import ImageCodecs
import MediaTypes

/// The encoded bytes the processor works from. A JPEG is copied to `[UInt8]` once here, and
/// the header read, the Exif read and the decode all use that copy (each would otherwise make
/// its own: three copies of a multi-megabyte file per image).
///
///     let input = EncodedInput(data, format: .jpeg)
///     let info = try input.readInfo()
struct EncodedInput {
    let data: Data
    let format: MediaFormat
    /// `data` as `[UInt8]`, for JPEG only.
    let jpeg: [UInt8]?

    init(_ data: Data, format: MediaFormat) {
        self.data = data
        self.format = format
        jpeg = format == .jpeg ? [UInt8](data) : nil
    }

    func readInfo() throws(CodecError) -> ImageInfo {
        if let jpeg { return try JPEGCodec.readInfo(bytes: jpeg) }
        return try ImageCodecs.readInfo(data, format: format)
    }

    func decode(options: DecodeOptions) throws(CodecError) -> DecodedImage {
        if let jpeg { return try JPEGCodec.decode(bytes: jpeg, options: options) }
        return try ImageCodecs.decode(data, format: format, options: options)
    }
}
