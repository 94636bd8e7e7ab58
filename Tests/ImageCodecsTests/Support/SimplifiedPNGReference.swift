import CPNG
import Foundation

@testable import ImageCodecs

/// The PNG decode as it was before the row decoder: the Swift chunk walk, then libpng's
/// simplified API (`png_image_begin_read_from_memory` + `png_image_finish_read`) with the same
/// layout rule and `PNG_IMAGE_FLAG_16BIT_sRGB`. The reference `PNGRowDecoder` is checked against.
///
///     let old = SimplifiedPNGReference.decode(data)
///     if case .decoded(let pixels, let warning) = old { ... }
enum SimplifiedPNGReference {
    enum Outcome {
        /// The pixels, and the one warning the simplified API kept (its first, cut at 63 bytes).
        case decoded(PixelBuffer, warning: String?)
        /// The walk or libpng refused the file.
        case failed(CodecError)
    }

    static func decode(_ data: Data, pixelBudget: Int = DecodeOptions().pixelBudget) -> Outcome {
        let bytes = [UInt8](data)
        do {
            _ = try PNGChunks(bytes) { width, height throws(CodecError) in
                try Limits.check(width: width, height: height, budget: pixelBudget)
            }
        } catch {
            return .failed(error)
        }
        // libpng keeps pointers to the png_image and to the input until the image is freed:
        // both live on the heap for the whole decode.
        let handle = UnsafeMutablePointer<png_image>.allocate(capacity: 1)
        handle.initialize(to: png_image())
        handle.pointee.version = UInt32(PNG_IMAGE_VERSION)
        let input = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, bytes.count))
        _ = input.initialize(from: bytes)
        defer {
            png_image_free(handle)
            handle.deallocate()
            input.deallocate()
        }
        func message() -> String {
            withUnsafeBytes(of: handle.pointee.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        guard png_image_begin_read_from_memory(handle, input.baseAddress, bytes.count) != 0 else {
            return .failed(.corrupt(codec: "libpng", message: message()))
        }
        let format = handle.pointee.format
        let layout: PixelBuffer.Layout =
            format & UInt32(PNG_FORMAT_FLAG_ALPHA) != 0
            ? .rgba : format & UInt32(PNG_FORMAT_FLAG_COLOR) != 0 ? .rgb : .gray
        handle.pointee.format =
            switch layout {
            case .gray: UInt32(PNG_FORMAT_GRAY)
            case .rgb: UInt32(PNG_FORMAT_RGB)
            case .rgba: UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
            }
        handle.pointee.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
        var pixels = PixelBuffer(width: Int(handle.pointee.width), height: Int(handle.pointee.height), layout: layout)
        let stride = Int32(pixels.stride)
        let finished = pixels.withUnsafeMutableBytes { png_image_finish_read(handle, nil, $0.baseAddress, stride, nil) }
        guard finished != 0 else { return .failed(.corrupt(codec: "libpng", message: message())) }
        let warning = handle.pointee.warning_or_error & UInt32(PNG_IMAGE_WARNING) != 0 ? message() : nil
        return .decoded(pixels, warning: warning)
    }
}
