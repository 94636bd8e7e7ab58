internal import CPNG

/// Owns one libpng simplified-API `png_image` (and the read state behind its `opaque`
/// pointer): `deinit` calls `png_image_free`.
///
///     let image = PNGImageHandle()
///     guard png_image_begin_read_from_memory(image.pointer, ...) != 0 else { throw image.failure() }
///
/// The simplified API reports errors in `png_image.message`, not through setjmp, which is why
/// it is the only libpng API used here.
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
