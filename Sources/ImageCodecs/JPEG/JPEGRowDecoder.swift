internal import CJPEGShim
import Foundation

/// Owns one libjpeg decompressor (`pa_jpeg_decoder`, the C shim in `CJPEGShim`) and hands out
/// a JPEG's rows top to bottom at the DCT scale `DecodeOptions.minimumSize` picks.
///
///     try bytes.withUnsafeBytes { raw in
///         let rows = try JPEGRowDecoder(raw, options: DecodeOptions(minimumSize: (256, 256)))
///         let pixels = try rows.readAll()
///     }
///
/// `init` throws when the header is unreadable, the pixel budget is exceeded or the C
/// constructor fails; `deinit` destroys the decompressor. The encoded bytes are read in place:
/// the decoder must not outlive the buffer it was opened on (`ImageCodecs.withRows` keeps it
/// inside its closure). One thread at a time.
///
/// Output: `.gray` for greyscale JPEGs, `.rgb` for everything else; CMYK and YCCK come out of
/// libjpeg as CMYK and are converted a few rows at a time to sRGB through lcms2
/// (`CMYKColorTransform`; the pixels then carry no profile): through the file's CMYK ICC
/// profile, or through `DefaultCMYKProfile` when it has none or one lcms2 cannot use (with a
/// warning then). `notes` says which; `iccProfile` is nil for them. Always the accurate integer
/// IDCT; progressive files with more than 500 scans are refused.
///
/// Warnings: libjpeg's own handler prints only the first warning of a decode, and TurboJPEG
/// kept only that text, so harmless junk early on (`extraneous bytes before marker`) hid a scan
/// cut short later. The shim records every warning; each is classified by its message code (`pa_jpeg_warning_is_metadata`).
///
/// - Complexity: memory is the caller's rows plus `workingMemory` (a whole-image coefficient
///   buffer for progressive and other multi-scan files, a few MCU rows for baseline).
final class JPEGRowDecoder: ImageRowSource {
    /// What `jpeg_read_header` found.
    struct Header {
        var width: Int
        var height: Int
        var components: Int
        var colorSpace: Int32
        var subsampling: Int32
        var isProgressive: Bool
        var isMultiScan: Bool
        /// An APP14 "Adobe" segment: Adobe applications store CMYK inverted.
        var sawAdobeMarker: Bool
    }

    private let raw: OpaquePointer
    private let bytes: UnsafeRawBufferPointer
    let header: Header
    /// The profile in the file's APP2 segments, whatever it describes.
    let embeddedProfile: [UInt8]?

    private(set) var width = 0
    private(set) var height = 0
    private(set) var layout = PixelBuffer.Layout.rgb
    private(set) var workingMemory = 0
    /// True when this decode may stop after the coefficients a 1/8 output uses are final
    /// (`DecodeOptions.validateAllScans` false on a progressive file).
    private(set) var isDCOnly = false
    /// CMYK output to convert: nil for grey and RGB output, else whether it is stored inverted.
    private var cmykInverted: Bool?
    private var cmykScratch: [UInt8] = []
    /// The lcms2 transform for a CMYK file (its profile's or the default's); nil converts naively.
    private var cmykTransform: CMYKColorTransform?
    /// How the colours were handled (a CMYK conversion), for the caller's log.
    private(set) var notes: [String] = []
    /// Warnings of our own (an unusable CMYK profile), after libjpeg's; never damage.
    private var colorWarnings: [String] = []
    private var started = false
    private var finished = false
    /// Damage found outside libjpeg's warnings (a missing end marker after an early stop).
    private var extraDamage: [String] = []
    /// A planar decode's (`planar(_:options:)`) chroma side; its rows are the luma plane's.
    private(set) var planes: JPEGPlaneCollector?
    /// The planes' group reader over this decompressor, made once, not at every `readRows`.
    private lazy var libjpegGroups = JPEGPlaneCollector.libjpeg(raw)

    var sourceWidth: Int { header.width }
    var sourceHeight: Int { header.height }
    var rowsRead: Int { planes?.lumaRowsOut ?? Int(pa_jpeg_output_scanline(raw)) }

    /// libjpeg's warnings so far, the first text of each kind, in order (a Motion-JPEG frame's
    /// "extraneous bytes before marker" at every restart marker is listed once).
    var warnings: [String] { libjpegWarnings + colorWarnings }

    private var libjpegWarnings: [String] {
        (0..<pa_jpeg_warning_messages(raw)).map { String(cString: pa_jpeg_warning_message(raw, $0)) }
    }

    /// The warnings that mean pixels made up (`pa_jpeg_warning_is_metadata` says which do not),
    /// and the shim's own findings.
    var damage: [String] {
        (0..<pa_jpeg_warning_messages(raw)).filter { pa_jpeg_warning_is_metadata(raw, $0) == 0 }.map {
            String(cString: pa_jpeg_warning_message(raw, $0))
        } + extraDamage
    }

    /// The profile that describes the rows handed out: the embedded one, except for CMYK and
    /// YCCK, whose rows are sRGB made here through lcms2 (untagged), which no embedded profile
    /// describes, whatever colour space it claims.
    var iccProfile: [UInt8]? { cmykInverted == nil ? embeddedProfile : nil }

    /// Every warning libjpeg emitted, repeats included; `warnings` keeps one text per kind.
    var warningCount: Int { Int(pa_jpeg_warning_count(raw)) }

    /// True when the decode stopped before the end of the data (`isDCOnly` and the file had
    /// scans after the ones the output needs).
    var stoppedEarly: Bool { pa_jpeg_stopped_early(raw) != 0 }

    /// Reads the header only (`readInfo`); `strict` makes a header warning an error.
    init(header bytes: UnsafeRawBufferPointer, strict: Bool) throws(CodecError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            throw .corrupt(codec: JPEGCodec.name, message: "empty file (0 bytes)")
        }
        guard let made = pa_jpeg_create(base.assumingMemoryBound(to: UInt8.self), bytes.count, strict ? 1 : 0) else {
            throw .corrupt(codec: JPEGCodec.name, message: "cannot create a decompressor: out of memory")
        }
        raw = made
        self.bytes = bytes
        let own: Int32 = JPEGCodec.ownDecoding ? 1 : 0
        pa_jpeg_set_own_huffman(made, own)
        pa_jpeg_set_own_idct(made, own)
        var info = pa_jpeg_info()
        guard pa_jpeg_read_header(made, &info) == PA_JPEG_OK else {
            let error = Self.headerError(JPEGCodec.failure(of: made), bytes)
            pa_jpeg_destroy(made)
            throw error
        }
        header = Header(
            width: Int(info.width), height: Int(info.height), components: Int(info.components),
            colorSpace: info.color_space, subsampling: info.subsampling, isProgressive: info.progressive != 0,
            isMultiScan: info.multi_scan != 0, sawAdobeMarker: info.saw_adobe_marker != 0)
        var length = 0
        if let profile = pa_jpeg_icc_profile(made, &length), length > 0 {
            embeddedProfile = Array(UnsafeBufferPointer(start: profile, count: length))
        } else {
            embeddedProfile = nil
        }
        // From here on every stored property is set, so a throw runs `deinit` (which destroys).
        guard header.width > 0, header.height > 0 else {
            throw .corrupt(codec: JPEGCodec.name, message: "image has zero size (\(header.width)x\(header.height))")
        }
        guard header.colorSpace != PA_JPEG_CS_UNKNOWN else {
            // What TurboJPEG's header call said for 2-component and other unnamed layouts.
            throw .corrupt(codec: JPEGCodec.name, message: "Could not determine colorspace of JPEG image")
        }
    }

    /// Opens a decode: the header, the pixel budget (checked on the header size before
    /// anything is allocated), the scale for `options.minimumSize`, the output format.
    convenience init(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions) throws(CodecError) {
        try self.init(header: bytes, strict: options.strict)
        try Limits.check(width: header.width, height: header.height, budget: options.pixelBudget)
        let scale = Scaling.jpeg(width: header.width, height: header.height, box: options.minimumSize)
        let isCMYK = header.colorSpace == PA_JPEG_CS_CMYK || header.colorSpace == PA_JPEG_CS_YCCK
        let isGray = header.colorSpace == PA_JPEG_CS_GRAY
        let format = isCMYK ? PA_JPEG_OUT_CMYK : (isGray ? PA_JPEG_OUT_GRAY : PA_JPEG_OUT_RGB)
        let dcOnly = !options.validateAllScans && scale.num * 8 == scale.denom
        var output = pa_jpeg_output()
        guard
            pa_jpeg_prepare(raw, UInt32(scale.num), UInt32(scale.denom), format, dcOnly ? 1 : 0, &output) == PA_JPEG_OK
        else { throw failure() }
        width = Int(output.width)
        height = Int(output.height)
        layout = isGray ? .gray : .rgb
        isDCOnly = output.dc_only != 0
        // Adobe (APP14) files store inverted CMYK; the APP14 marker decides.
        cmykInverted = isCMYK ? header.sawAdobeMarker : nil
        if let inverted = cmykInverted { chooseCMYKConversion(inverted: inverted) }
        let scratchBytes = isCMYK ? width * 4 * Self.cmykRowsPerChunk : 0
        workingMemory = Int(output.working_memory) + scratchBytes
    }

    /// A planar decode (`JPEGCodec.withPlanes`): the rows handed out are the luma plane
    /// (`.gray`, at the DCT scale `options.minimumSize` picks), and `planes` gathers the chroma
    /// into 4:2:0 planes as they pass. Nil, before anything is decoded, for a file that is not
    /// three-component YCbCr or whose sampling `JPEGPlaneCollector` does not take. `decoder`
    /// is fresh from `init(header:strict:)`.
    static func planar(_ decoder: JPEGRowDecoder, options: DecodeOptions) throws(CodecError) -> JPEGRowDecoder? {
        let header = decoder.header
        guard header.colorSpace == PA_JPEG_CS_YCBCR, header.components == 3 else { return nil }
        try Limits.check(width: header.width, height: header.height, budget: options.pixelBudget)
        let scale = Scaling.jpeg(width: header.width, height: header.height, box: options.minimumSize)
        let dcOnly = !options.validateAllScans && scale.num * 8 == scale.denom
        var output = pa_jpeg_output()
        let raw = decoder.raw
        guard
            pa_jpeg_prepare(raw, UInt32(scale.num), UInt32(scale.denom), PA_JPEG_OUT_PLANES, dcOnly ? 1 : 0, &output)
                == PA_JPEG_OK
        else { throw decoder.failure() }
        var geometry: [pa_jpeg_plane] = []
        for c in 0..<3 {
            var plane = pa_jpeg_plane()
            guard pa_jpeg_plane_geometry(raw, Int32(c), &plane) == PA_JPEG_OK else { return nil }
            geometry.append(plane)
        }
        guard let planes = JPEGPlaneCollector(geometry, width: Int(output.width), height: Int(output.height)) else {
            return nil
        }
        decoder.planes = planes
        decoder.width = planes.width
        decoder.height = planes.height
        decoder.layout = .gray
        decoder.isDCOnly = output.dc_only != 0
        decoder.workingMemory = Int(output.working_memory) + planes.bytes
        return decoder
    }

    deinit { pa_jpeg_destroy(raw) }

    /// Rows converted from CMYK per step: the scratch holds this many CMYK rows.
    private static let cmykRowsPerChunk = 16

    func readRows(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws(CodecError) -> Int {
        precondition(stride >= width * layout.channels, "stride \(stride) is shorter than a row")
        let wanted = min(count, height - rowsRead)
        guard wanted > 0 else {
            if rowsRead == height { try finish() }
            return 0
        }
        if !started {
            guard pa_jpeg_start(raw) == PA_JPEG_OK else { throw failure() }
            started = true
        }
        if let planes {
            let (done, failed) = planes.readLuma(libjpegGroups, into: buffer, stride: stride, count: wanted)
            if failed { throw failure() }
            if rowsRead == height { try finish() }
            return done
        }
        var done = 0
        if let inverted = cmykInverted {
            if cmykScratch.isEmpty { cmykScratch = [UInt8](repeating: 0, count: width * 4 * Self.cmykRowsPerChunk) }
            let rowBytes = width * 4
            while done < wanted {
                let chunk = min(wanted - done, Self.cmykRowsPerChunk)
                var got: UInt32 = 0
                let status = cmykScratch.withUnsafeMutableBufferPointer { scratch in
                    pa_jpeg_read_rows(raw, scratch.baseAddress, rowBytes, UInt32(chunk), &got)
                }
                guard status == PA_JPEG_OK else { throw failure() }
                cmykScratch.withUnsafeBufferPointer { scratch in
                    if let cmykTransform {
                        cmykTransform.convert(
                            scratch.baseAddress!, stride: rowBytes, into: buffer + done * stride, stride: stride,
                            width: width, rows: Int(got))
                        return
                    }
                    for i in 0..<Int(got) {
                        CMYKConversion.convertRow(
                            scratch.baseAddress! + i * rowBytes, into: buffer + (done + i) * stride, width: width,
                            inverted: inverted)
                    }
                }
                done += Int(got)
                if got == 0 { break }
            }
        } else {
            var got: UInt32 = 0
            guard pa_jpeg_read_rows(raw, buffer, stride, UInt32(wanted), &got) == PA_JPEG_OK else { throw failure() }
            done = Int(got)
        }
        if rowsRead == height { try finish() }
        return done
    }

    /// Picks the CMYK conversion: lcms2 through the file's profile when it embeds one lcms2 can
    /// use, else through `DefaultCMYKProfile` (with a warning when the file's profile was there
    /// but unusable); the naive formula only if lcms2 cannot build either. Sets `notes`.
    private func chooseCMYKConversion(inverted: Bool) {
        let space = header.colorSpace == PA_JPEG_CS_YCCK ? "ycck" : "cmyk"
        if let profile = embeddedProfile {
            switch CMYKTransformCache.shared.transform(for: profile, inverted: inverted) {
            case .success(let transform):
                cmykTransform = transform
                let name = transform.profileDescription.map { " '\($0)'" } ?? ""
                notes.append(
                    "converted \(space) to sRGB through the embedded ICC profile\(name) (lcms2, \(CMYKColorTransform.Rendering.perceptual.name))"
                )
                return
            case .failure(let failure):
                colorWarnings.append(
                    "CMYK ICC profile (\(profile.count) bytes) not used: \(failure.message); colours converted through the default CMYK profile '\(DefaultCMYKProfile.name)'"
                )
            }
        }
        let why = embeddedProfile == nil ? "no ICC profile in the file" : "the file's ICC profile is unusable"
        let rendering = DefaultCMYKProfile.rendering
        let made = CMYKTransformCache.shared.transform(
            for: DefaultCMYKProfile.bytes, inverted: inverted, rendering: rendering)
        switch made {
        case .success(let transform):
            cmykTransform = transform
            notes.append(
                "converted \(space) to sRGB through the default CMYK profile '\(DefaultCMYKProfile.name)', \(why) (lcms2, \(rendering.name))"
            )
        case .failure(let failure):
            notes.append("converted \(space) to rgb without colour management (\(why))")
            colorWarnings.append("the default CMYK profile is unusable: \(failure.message)")
        }
    }

    /// After the last row: `jpeg_finish_decompress` reads on to the end-of-image marker, so a
    /// missing one or junk after the scan shows as a warning (in strict mode, an error).
    private func finish() throws(CodecError) {
        guard !finished else { return }
        finished = true
        guard pa_jpeg_finish(raw) == PA_JPEG_OK else { throw failure() }
        if stoppedEarly, damage.isEmpty, !JPEGCodec.hasEndOfImage(bytes, from: Int(pa_jpeg_stop_offset(raw))) {
            // The early stop left the later scans unread, so libjpeg never reached the end to
            // warn about it; the end marker is the cheap proof that the data runs to its end.
            extraDamage.append("Premature end of JPEG file (no end-of-image marker after the scan)")
        }
    }

    /// The failed call's message as a `CodecError`.
    private func failure() -> CodecError { JPEGCodec.failure(of: raw) }

    /// A header failure as a `CodecError`: variants libjpeg 2.1 cannot decode get our own words
    /// (12-bit, lossless, JPEG-LS), read from the frame header; the rest are libjpeg's.
    private static func headerError(_ error: CodecError, _ bytes: UnsafeRawBufferPointer) -> CodecError {
        // The walk needs `[UInt8]`; only the header matters, and this is the failure path.
        let prefix = [UInt8](bytes.prefix(Self.headerWalkLimit))
        if let reason = JPEGHeader(prefix).unsupportedReason {
            return .unsupported(codec: JPEGCodec.name, message: reason)
        }
        return error
    }

    /// Bytes of a failed file copied for the marker walk: the frame header comes before the
    /// first scan, after at most a few large APP segments.
    private static let headerWalkLimit = 4 << 20
}
