internal import CHeif
import Foundation
import MediaTypes

/// Owns one libheif `heif_context` and the `heif_image_handle` of its primary image:
/// `init` parses the container (no pixels are decoded) and throws with libheif's message when
/// it cannot, `deinit` releases both.
///
///     let handle = try HEIFHandle(bytes, maximumSide: 16_384)
///     print(handle.width, handle.height, handle.hasAlpha)   // after irot/imir/clap
///     let image = try handle.decode(alpha: handle.hasAlpha, strict: false)
///
/// The context reads `bytes` in place (`heif_context_read_from_memory_without_copy`): the
/// handle, and every `HEIFImage` decoded from it, must not outlive them. A handle is used by
/// one thread at a time.
final class HEIFHandle {
    private let context: OpaquePointer
    private let handle: OpaquePointer

    /// libheif wants `heif_init` before use (it registers the decoder plugins); it is reference
    /// counted, and called once for the life of the process.
    private static let initialized: Bool = {
        let error = heif_init(nil)
        return error.code == heif_error_Ok
    }()

    /// Parses the container in `bytes` and opens its primary image.
    ///
    /// Before libheif sees the bytes, the boxes are walked (`HEIFPrimaryImage.checkDecodable`):
    /// every item the primary image is built from must be HEVC or AV1 coded at the size its
    /// `ispe` says (libheif allocates what the stream says, whatever `ispe` claims), and with a
    /// `pixelBudget`, within it.
    ///
    /// - Parameters:
    ///   - maximumSide: libheif's own security limit on each side of any image in the file
    ///     (`heif_context_set_maximum_image_size_limit`, the only limit libheif 1.15 offers),
    ///     checked against `ispe` as it parses.
    ///   - pixelBudget: the most pixels any coded item or grid output may have; nil checks only
    ///     that the coded sizes agree with the headers.
    init(_ bytes: UnsafeRawBufferPointer, maximumSide: Int, pixelBudget: Int? = nil) throws(CodecError) {
        _ = Self.initialized
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            throw .corrupt(codec: HEIFCodec.name, message: "the file is empty")
        }
        let structure: HEIFPrimaryImage
        do {
            structure = try HEIFPrimaryImage(bytes)
        } catch {
            throw HEIFCodec.error(error, budget: pixelBudget ?? 0)
        }
        // The displayed size first, so the refusal names the size a reader sees.
        if let pixelBudget, let size = structure.displayedSize {
            try Limits.check(width: size.width, height: size.height, budget: pixelBudget)
        }
        do {
            try structure.checkDecodable(pixelBudget: pixelBudget)
        } catch {
            throw HEIFCodec.error(error, budget: pixelBudget ?? 0)
        }
        guard let context = heif_context_alloc() else {
            throw .corrupt(codec: HEIFCodec.name, message: "heif_context_alloc failed (out of memory)")
        }
        heif_context_set_maximum_image_size_limit(context, Int32(clamping: maximumSide))
        var error = heif_context_read_from_memory_without_copy(context, base, bytes.count, nil)
        guard error.code == heif_error_Ok else {
            let failure = HEIFCodec.error(error, while: "reading the container")
            heif_context_free(context)
            throw failure
        }
        var primary: OpaquePointer?
        error = heif_context_get_primary_image_handle(context, &primary)
        guard error.code == heif_error_Ok, let primary else {
            let failure = HEIFCodec.error(error, while: "opening the primary image")
            heif_context_free(context)
            throw failure
        }
        self.context = context
        self.handle = primary
        // The displayed size: the coded (`ispe`) size through the clap/irot transforms, which
        // libheif 1.15's handle size leaves out (newer libheif includes them).
        let ispe = (Int(heif_image_handle_get_ispe_width(primary)), Int(heif_image_handle_get_ispe_height(primary)))
        let transforms = structure.transforms
        if ispe.0 > 0, ispe.1 > 0 {
            (width, height) = transforms.upright(width: ispe.0, height: ispe.1)
        } else {
            (width, height) = (Int(heif_image_handle_get_width(primary)), Int(heif_image_handle_get_height(primary)))
        }
        self.transforms = transforms
        self.isLimitedRangeMonochrome = structure.isLimitedRangeMonochrome
    }

    deinit {
        heif_image_handle_release(handle)
        heif_context_free(context)
    }

    /// Width of the primary image as displayed: after its `clap` and `irot` transforms (a
    /// portrait photo stored landscape with `irot` 90 reports its portrait width).
    let width: Int
    /// Height of the primary image as displayed, after its transforms.
    let height: Int
    /// The primary image's transform properties, as read from the boxes.
    let transforms: HEIFTransforms
    /// Whether the primary image is limited-range monochrome, whose luma libheif 1.15 copies to
    /// RGB without expanding it (16...235 where 0...255 is meant).
    let isLimitedRangeMonochrome: Bool
    /// Whether the primary image has an alpha plane (an auxiliary alpha image).
    var hasAlpha: Bool { heif_image_handle_has_alpha_channel(handle) != 0 }
    /// Bits per luma sample as coded (8, 10, 12); nil when the file does not say.
    var bitDepth: Int? {
        let bits = heif_image_handle_get_luma_bits_per_pixel(handle)
        return bits > 0 ? Int(bits) : nil
    }

    /// The embedded ICC profile (`colr` of type `prof` or `rICC`); nil for none or an nclx
    /// description (which libheif applies itself when it converts YCbCr to RGB).
    var iccProfile: [UInt8]? {
        let type = heif_image_handle_get_color_profile_type(handle)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0, size <= 16 << 20 else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        let error = profile.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
        return error.code == heif_error_Ok ? profile : nil
    }

    /// Decodes the primary image to 8-bit interleaved RGB, or RGBA when `alpha`, with its
    /// transforms applied (libheif's default), 10- and 12-bit images converted to 8 bits.
    ///
    /// - Parameter strict: libheif's `strict_decoding`: invalid input fails instead of being
    ///   decoded as well as it can be.
    func decode(alpha: Bool, strict: Bool) throws(CodecError) -> HEIFImage {
        guard let options = heif_decoding_options_alloc() else {
            throw .corrupt(codec: HEIFCodec.name, message: "heif_decoding_options_alloc failed (out of memory)")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.ignore_transformations = 0
        options.pointee.convert_hdr_to_8bit = 1
        options.pointee.strict_decoding = strict ? 1 : 0
        var image: OpaquePointer?
        let chroma = alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
        let error = heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, options)
        guard error.code == heif_error_Ok, let image else {
            if let image { heif_image_release(image) }
            throw HEIFCodec.error(error, while: "decoding the primary image")
        }
        return try HEIFImage(image, channels: alpha ? 4 : 3)
    }
}

/// Owns one decoded `heif_image` (8-bit interleaved RGB or RGBA) and releases it on `deinit`.
/// Its rows are read in place from libheif's plane, so no second copy of the frame is made.
final class HEIFImage {
    private let image: OpaquePointer
    let width: Int
    let height: Int
    let channels: Int
    /// Bytes from one row of `plane` to the next.
    let stride: Int
    let plane: UnsafePointer<UInt8>

    /// Takes ownership of `image` (released here, on failure too).
    init(_ image: OpaquePointer, channels: Int) throws(CodecError) {
        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        let bits = heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved)
        var stride: Int32 = 0
        guard width > 0, height > 0, bits == 8,
            let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
            Int(stride) >= width * channels
        else {
            heif_image_release(image)
            throw .corrupt(
                codec: HEIFCodec.name,
                message: "the decoded image is not \(width)x\(height) 8-bit interleaved (\(bits) bits, stride \(stride))")
        }
        self.image = image
        self.width = width
        self.height = height
        self.channels = channels
        self.stride = Int(stride)
        self.plane = plane
    }

    deinit { heif_image_release(image) }

    /// Bytes libheif holds for the plane.
    var byteCount: Int { stride * height }
}
