internal import CPNG

/// Owns one libpng simplified-API `png_image` for writing: `deinit` calls `png_image_free`.
///
///     let image = PNGImageHandle()
///     png_image_write_to_memory(image.pointer, ...)
///
/// The simplified API reports errors in `png_image.message`, not through setjmp, so it needs
/// no C shim. Reading goes through `PNGRowDecoder` (libpng's sequential API) instead.
final class PNGImageHandle {
    let pointer: UnsafeMutablePointer<png_image>

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: png_image())
        pointer.pointee.version = UInt32(PNG_IMAGE_VERSION)
        pointer.pointee.opaque = nil
    }

    deinit {
        png_image_free(pointer)
        pointer.deallocate()
    }

    /// libpng's message, copied out.
    var message: String {
        withUnsafeBytes(of: pointer.pointee.message) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
