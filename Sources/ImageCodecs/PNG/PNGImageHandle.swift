internal import CPNG

/// Owns one libpng simplified-API `png_image` (and the read state behind its `opaque`
/// pointer): `deinit` calls `png_image_free`. A reading handle also owns a copy of the input:
/// `png_image_begin_read_from_memory` keeps the pointer it is given until the image is
/// freed, so the bytes must live exactly as long as the handle (a pointer from
/// `withUnsafeBufferPointer` does not: the array may be freed once it is no longer used).
///
///     let image = try PNGImageHandle(reading: bytes)
///     png_image_finish_read(image.pointer, ...)
///
/// The simplified API reports errors in `png_image.message`, not through setjmp, which is why
/// it is the only libpng API used here.
final class PNGImageHandle {
    let pointer: UnsafeMutablePointer<png_image>
    /// The encoded bytes libpng reads from, for a reading handle.
    private var input: UnsafeMutableBufferPointer<UInt8>?

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: png_image())
        pointer.pointee.version = UInt32(PNG_IMAGE_VERSION)
        pointer.pointee.opaque = nil
    }

    /// A handle that has read the header of `bytes` (png_image_begin_read_from_memory).
    convenience init(reading bytes: [UInt8]) throws(CodecError) {
        self.init()
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, bytes.count))
        _ = copy.initialize(from: bytes)
        input = copy
        guard png_image_begin_read_from_memory(pointer, copy.baseAddress, bytes.count) != 0 else {
            throw .corrupt(codec: PNGCodec.name, message: message)
        }
    }

    deinit {
        png_image_free(pointer)
        pointer.deallocate()
        input?.deallocate()
    }

    /// libpng's message, copied out.
    var message: String {
        withUnsafeBytes(of: pointer.pointee.message) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
