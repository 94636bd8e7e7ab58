internal import CPNGShim

/// Owns one libpng sequential reader (`pa_png_decoder` of the `CPNGShim` target): `init`
/// walks the chunks, reads the header and sets the transforms, `deinit` destroys the reader.
/// It reads the encoded bytes in place, so it must not outlive the buffer it was opened on.
///
///     let pixels = try data.withUnsafeBytes { raw in
///         let decoder = try PNGRowDecoder(raw, options: DecodeOptions())
///         return try decoder.readAll()
///     }
///
/// Rows come out as `.gray` (grey without alpha), `.rgb`, or `.rgba` (any alpha channel or
/// tRNS), 8 bits per channel, converted to sRGB when the file has a gAMA chunk: the pixels
/// libpng's simplified API gave (`pa_png_decoder_start` makes the same libpng calls).
///
/// - Non-interlaced files decode row by row straight into the caller's rows; the decoder holds
///   libpng's two row buffers and zlib's window (`workingMemory`). The common file (8-bit grey,
///   RGB, grey+alpha or RGBA, no tRNS, no gamma to convert) is read by CPNGShim's own reader
///   (fast.c: ISA-L's inflate, its own unfiltering, its inflate buffer counted too), libpng's
///   rows byte for byte, handed to libpng from its first row at anything unusual.
/// - Interlaced (Adam7) files need every pass before any row is final, so the first
///   `readRows` decodes the whole frame into a buffer of the decoder's own
///   (width × height × channels, also in `workingMemory`) and later calls copy rows out of it.
///   `readAll()` on a fresh decoder skips that buffer and decodes into its result directly.
/// - APNG files decode their default image (libpng skips fcTL and fdAT as unknown chunks).
/// - A file cut inside or after its image data (`PNGChunks.truncation`) decodes the rows that
///   are there; libpng stops at the cut ("read beyond end of data") and the rows after it are
///   filled with zeros (black, transparent where there is alpha), as libvips leaves them.
///   `damage` says so, so the engine refuses the image unless damaged images are accepted, as
///   for a JPEG cut short. An interlaced file keeps the passes that completed.
///
/// Used by one thread at a time, like every `ImageRowSource`.
final class PNGRowDecoder: ImageRowSource {
    private let raw: OpaquePointer
    /// The chunk walk's findings: size, iCCP, eXIf, XMP, frame count.
    let chunks: PNGChunks
    let width: Int
    let height: Int
    let layout: PixelBuffer.Layout
    /// Adam7: rows are final only after the last pass.
    let isInterlaced: Bool
    let iccProfile: [UInt8]?
    /// Why the iCCP profile was set aside, when it was.
    private let profileNote: String?
    /// libpng's own per-row buffers, from `pa_png_decoder_start`.
    private let internalBytes: Int
    /// The decoded frame of an interlaced file, once the first rows were asked for.
    private var frame: [UInt8]?
    /// The first error: libpng's state is undefined after one, so every later call repeats it.
    private var failure: CodecError?
    /// Set when libpng hit the cut of a truncated file: the row it stopped at, and its message.
    private var cut: (row: Int, message: String)?
    private(set) var rowsRead = 0

    /// Largest ancillary chunk libpng buffers (`png_set_chunk_malloc_max`): libpng's own default,
    /// set explicitly so a newer libpng cannot raise it. IDAT is streamed and never buffered whole.
    static let chunkLimit = 8_000_000
    /// zlib's inflate state and its largest window, held while rows are read.
    static let zlibBytes = 48 << 10

    /// Opens a decoder over `bytes` (read in place; they must outlive the decoder).
    ///
    /// The IHDR size is checked against `pixelBudget` by the chunk walk, before libpng sees the
    /// file; libpng's user limits are set from the same budget. nil skips the check (`readInfo`).
    ///
    /// - Throws: `.pixelBudgetExceeded`, or `.corrupt` naming "png-chunks" (signature, CRC,
    ///   truncation found by the walk) or "libpng" (libpng's own message).
    init(_ bytes: UnsafeRawBufferPointer, pixelBudget: Int?, fast: Bool = true) throws(CodecError) {
        chunks = try PNGChunks(bytes) { width, height throws(CodecError) in
            if let pixelBudget { try Limits.check(width: width, height: height, budget: pixelBudget) }
        }
        let side = UInt32(min(pixelBudget ?? 0x7FFF_FFFF, 0x7FFF_FFFF))
        var limits = pa_png_limits(max_width: side, max_height: side, max_chunk_bytes: Self.chunkLimit)
        guard
            let made = pa_png_decoder_create(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &limits)
        else {
            throw .corrupt(codec: PNGCodec.name, message: "cannot create a libpng reader (out of memory)")
        }
        raw = made
        var header = pa_png_header()
        guard pa_png_decoder_read_header(raw, &header) == 0 else {
            let message = String(cString: pa_png_decoder_error(raw))
            pa_png_decoder_destroy(raw)
            throw .corrupt(codec: PNGCodec.name, message: message)
        }
        width = Int(header.width)
        height = Int(header.height)
        isInterlaced = header.interlaced != 0
        // The simplified API's rule: alpha from an alpha channel or tRNS, grey only without either.
        let hasAlpha = header.color_type & 4 != 0 || header.has_trns != 0
        layout = hasAlpha ? .rgba : header.color_type & 2 != 0 ? .rgb : .gray
        pa_png_decoder_set_fast(raw, fast ? 1 : 0)
        var output = pa_png_output_info()
        let target: pa_png_output =
            switch layout {
            case .gray: PA_PNG_OUTPUT_GRAY
            case .rgb: PA_PNG_OUTPUT_RGB
            case .rgba: PA_PNG_OUTPUT_RGBA
            }
        guard pa_png_decoder_start(raw, target, &output) == 0 else {
            let message = String(cString: pa_png_decoder_error(raw))
            pa_png_decoder_destroy(raw)
            throw .corrupt(codec: PNGCodec.name, message: message)
        }
        internalBytes = output.internal_row_bytes
        (iccProfile, profileNote) = PNGCodec.profile(from: chunks)
    }

    deinit { pa_png_decoder_destroy(raw) }

    /// Who reads the rows (`pa_png_decoder_fast_state`): 0 libpng throughout, 1 CPNGShim's own
    /// reader, 2 the own reader handed the file to libpng.
    var fastState: Int32 { pa_png_decoder_fast_state(raw) }

    var sourceWidth: Int { width }
    var sourceHeight: Int { height }

    /// libpng's warnings (benign errors included) so far, then the note on a set-aside iCCP
    /// profile, then `damage`.
    var warnings: [String] {
        var all = (0..<pa_png_decoder_warning_count(raw)).map { String(cString: pa_png_decoder_warning(raw, $0)) }
        let dropped = pa_png_decoder_warnings_dropped(raw)
        if dropped > 0 { all.append("\(dropped) more libpng warnings not kept") }
        if let profileNote { all.append(profileNote) }
        return all + damage
    }

    /// The truncation of a file cut inside or after its image data, with the rows decoded;
    /// otherwise empty (libpng fails on damaged image data rather than making pixels up).
    var damage: [String] {
        guard let truncation = chunks.truncation else { return [] }
        guard let cut else { return ["PNG \(truncation); every row was there"] }
        let rows =
            isInterlaced
            ? "the interlace passes before it kept" : "rows \(cut.row)-\(height - 1) of \(height) filled with black"
        return ["PNG \(truncation): \(cut.message) at row \(cut.row); \(rows)"]
    }

    /// libpng's row buffers and zlib's state; for an interlaced file, the whole frame.
    var workingMemory: Int {
        internalBytes + Self.zlibBytes + (isInterlaced ? width * height * layout.channels : 0)
    }

    func readRows(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws(CodecError) -> Int {
        if let failure { throw failure }
        let rowBytes = width * layout.channels
        precondition(stride >= rowBytes, "readRows: stride \(stride) is less than a row (\(rowBytes) bytes)")
        let n = min(count, height - rowsRead)
        guard n > 0 else { return 0 }
        if !isInterlaced {
            if cut == nil {
                let status = pa_png_decoder_read_rows(raw, buffer, stride, UInt32(n))
                if status != 0 {
                    try checkCut(status, row: Int(pa_png_decoder_rows_read(raw)))
                }
            }
            if cut != nil {
                // The rows from the cut on (this call's share of them) are zeros.
                let done = max(0, Int(pa_png_decoder_rows_read(raw)) - rowsRead)
                for i in done..<n { (buffer + i * stride).update(repeating: 0, count: rowBytes) }
            }
        } else if rowsRead == 0 && n == height {
            // Every row at once (readAll): the passes go straight into the caller's frame.
            for i in 0..<n { (buffer + i * stride).update(repeating: 0, count: rowBytes) }
            try checkCut(pa_png_decoder_read_image(raw, buffer, stride), row: 0)
        } else {
            if frame == nil {
                var whole = [UInt8](repeating: 0, count: rowBytes * height)
                let status = whole.withUnsafeMutableBufferPointer {
                    pa_png_decoder_read_image(raw, $0.baseAddress, rowBytes)
                }
                try checkCut(status, row: 0)
                frame = whole
            }
            frame!.withUnsafeBufferPointer { whole in
                for i in 0..<n {
                    (buffer + i * stride).update(from: whole.baseAddress! + (rowsRead + i) * rowBytes, count: rowBytes)
                }
            }
        }
        rowsRead += n
        if rowsRead == height { frame = nil }
        return n
    }

    /// A failed shim call on a truncated file is the cut (recorded, not thrown); any other
    /// failure, or one on a whole file, is the decoder's (sticky) error.
    private func checkCut(_ status: Int32, row: Int) throws(CodecError) {
        guard status != 0 else { return }
        let message = String(cString: pa_png_decoder_error(raw))
        // The shim's read callback says this when the bytes run out; any other error (a bad
        // filter byte, a zlib error) is damage libpng refuses, cut file or not.
        guard chunks.truncation != nil, message == Self.ranOutMessage else { return try check(status) }
        cut = (row, message)
    }

    /// `pa_png_read`'s error when libpng asks for bytes past the end of the input.
    static let ranOutMessage = "read beyond end of data"

    /// Turns a failed shim call into the decoder's (sticky) error.
    private func check(_ status: Int32) throws(CodecError) {
        guard status != 0 else { return }
        let error = CodecError.corrupt(codec: PNGCodec.name, message: String(cString: pa_png_decoder_error(raw)))
        failure = error
        throw error
    }
}
