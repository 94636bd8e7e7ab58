internal import CHeif
import Foundation
import MediaTypes

/// HEIC, HEIF and AVIF through libheif (with libde265 for HEVC and dav1d or libaom for AV1).
///
///     let info = try HEIFCodec.readInfo(data)   // size after irot/imir, alpha, bit depth, ICC
///     let image = try HEIFCodec.decode(data, options: DecodeOptions())
///
/// The primary image is decoded at full size (libheif has no shrink-on-load) to 8-bit `.rgb`,
/// or `.rgba` when it has an alpha plane; 10- and 12-bit images are converted to 8 bits by
/// libheif. **Orientation**: libheif applies the `irot`, `imir` and `clap` transforms on decode,
/// so the pixels come out upright and `readInfo` reports the upright size. The HEIF standard
/// (ISO/IEC 23008-12) makes these transform properties authoritative; an Exif Orientation tag
/// in the file is not handed to the engine, so nothing is rotated twice.
public enum HEIFCodec {
    static let name = "libheif"

    /// The largest side of any image in a file libheif will parse
    /// (`heif_context_set_maximum_image_size_limit`): its own security limit, set on every
    /// context so another libheif's default cannot loosen it. The pixel budget is checked
    /// besides, on the primary image's size, before any pixels are decoded.
    static let maximumSide = 32_768

    /// Size after transforms, alpha, coded bit depth (`bitDepth`) and ICC profile of the primary
    /// image, without decoding it.
    ///
    ///     let info = try HEIFCodec.readInfo(data)   // info.width, info.hasAlpha
    public static func readInfo(_ data: Data) throws(CodecError) -> ImageInfo {
        try JPEGCodec.reading(data) { bytes throws(CodecError) in
            let handle = try HEIFHandle(bytes, maximumSide: maximumSide)
            return info(handle)
        }
    }

    /// Decodes the primary image, upright, to `.rgb` or `.rgba` (alpha plane present).
    ///
    /// - Throws: `CodecError`, before any pixel is decoded: `.pixelBudgetExceeded` when the
    ///   header size, or the coded size of any item the image is built from (tiles, alpha), or a
    ///   grid's output is over `options.pixelBudget`; `.corrupt` when a coded size disagrees
    ///   with its `ispe`; `.unsupported` naming the feature (`iden`, `pred`, layered, AVC).
    ///   While decoding, `.corrupt` or `.unsupported` with libheif's message.
    public static func decode(_ data: Data, options: DecodeOptions) throws(CodecError) -> DecodedImage {
        try JPEGCodec.reading(data) { bytes throws(CodecError) in
            let rows = try HEIFRowSource(bytes, options: options)
            let pixels = try rows.readAll()
            return DecodedImage(
                pixels: pixels, sourceWidth: rows.sourceWidth, sourceHeight: rows.sourceHeight,
                iccProfile: rows.iccProfile)
        }
    }

    /// A row source over `data` for `ImageCodecs.withRows`: the primary image decoded whole by
    /// libheif (the header size checked against `options.pixelBudget` first), its rows read in
    /// place from libheif's plane.
    static func withRows<R>(_ data: Data, options: DecodeOptions, _ body: (any ImageRowSource) throws -> R) throws
        -> R
    {
        try data.withUnsafeBytes { raw in
            let rows = try HEIFRowSource(raw, options: options)
            return try body(rows)
        }
    }

    static func info(_ handle: HEIFHandle) -> ImageInfo {
        var info = ImageInfo(
            width: handle.width, height: handle.height, hasAlpha: handle.hasAlpha, frames: 1,
            iccProfile: handle.iccProfile)
        info.bitDepth = handle.bitDepth
        return info
    }

    /// The box walk's refusal as a `CodecError`: damage is `.corrupt`, a missing feature
    /// `.unsupported` (named), a size over `budget` `.pixelBudgetExceeded`.
    static func error(_ error: HEIFStructureError, budget: Int) -> CodecError {
        switch error {
        case .damaged(let message): .corrupt(codec: "heif-boxes", message: message)
        case .unsupported(let message): .unsupported(codec: name, message: message)
        case .overBudget(_, let width, let height): .pixelBudgetExceeded(width: width, height: height, budget: budget)
        }
    }

    /// libheif's error as a `CodecError`, its message copied and `step` saying where it failed.
    static func error(_ error: heif_error, while step: String) -> CodecError {
        let text = error.message.map { String(cString: $0) } ?? "no message"
        let message = "\(text) (\(step); heif_error \(error.code.rawValue).\(error.subcode.rawValue))"
        switch error.code {
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
            return .unsupported(codec: name, message: message)
        default:
            return .corrupt(codec: name, message: message)
        }
    }
}

/// The rows of a HEIF primary image decoded by libheif, handed out from libheif's own plane.
/// libheif decodes the whole image at once (it has no row API), so the source holds one
/// full-size frame: `workingMemory` says so.
final class HEIFRowSource: ImageRowSource {
    private let handle: HEIFHandle
    private let image: HEIFImage
    let iccProfile: [UInt8]?
    private(set) var rowsRead = 0

    /// Levels 16...235 to 0...255, for limited-range monochrome; nil for other images.
    private let expansion: [UInt8]?

    init(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions) throws(CodecError) {
        let handle = try HEIFHandle(bytes, maximumSide: HEIFCodec.maximumSide, pixelBudget: options.pixelBudget)
        try Limits.check(width: handle.width, height: handle.height, budget: options.pixelBudget)
        self.handle = handle
        self.iccProfile = handle.iccProfile
        self.image = try handle.decode(alpha: handle.hasAlpha, strict: options.strict)
        self.expansion = handle.isLimitedRangeMonochrome ? Self.fullRange : nil
    }

    /// Limited-range luma (16 black, 235 white) stretched to full range, clamped.
    static let fullRange: [UInt8] = (0..<256).map { v in
        UInt8(clamping: Int(((Double(v) - 16) * 255 / 219).rounded()))
    }

    var width: Int { image.width }
    var height: Int { image.height }
    var layout: PixelBuffer.Layout { image.channels == 4 ? .rgba : .rgb }
    var sourceWidth: Int { image.width }
    var sourceHeight: Int { image.height }
    var warnings: [String] { [] }
    var damage: [String] { [] }
    var workingMemory: Int { image.byteCount }

    func readRows(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws(CodecError) -> Int {
        let n = min(count, height - rowsRead)
        guard n > 0 else { return 0 }
        let rowBytes = width * image.channels
        for i in 0..<n {
            let row = buffer + i * stride
            row.update(from: image.plane + (rowsRead + i) * image.stride, count: rowBytes)
            if let expansion {
                // Grey in R, G and B; an alpha channel is left as it is.
                let channels = image.channels
                for p in Swift.stride(from: 0, to: rowBytes, by: channels) {
                    row[p] = expansion[Int(row[p])]
                    row[p + 1] = expansion[Int(row[p + 1])]
                    row[p + 2] = expansion[Int(row[p + 2])]
                }
            }
        }
        rowsRead += n
        return n
    }
}
