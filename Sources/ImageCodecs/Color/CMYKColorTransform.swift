internal import CLCMS2
import Foundation

/// An lcms2 transform from a CMYK ICC profile to sRGB, for CMYK and YCCK JPEGs that embed one.
///
///     switch CMYKColorTransform.make(profile: icc, inverted: true) {
///     case .success(let transform): transform.convert(cmykRows, stride: w * 4, into: rgb, stride: rgbStride, width: w, rows: n)
///     case .failure(let failure): print(failure.message)   // convert without colour management
///     }
///
/// - **Intent**: perceptual for embedded profiles (`Rendering.perceptual`). It is the intent the ICC recommends for photographs and the one
///   Pillow's `ImageCms.profileToProfile` uses by default; press profiles (SWOP, FOGRA) map
///   their paper white and their ink black onto the display's white and black with it. libvips
///   defaults to relative colorimetric, which leaves a press black as dark grey (L* 15-20)
///   unless black point compensation is on. A profile without perceptual tables falls back to
///   its default tables inside lcms2. The default CMYK profile uses relative colorimetric with
///   black point compensation instead (`Rendering.relativeWithBlackPointCompensation`, why in
///   `DefaultCMYKProfile`).
/// - **Output**: sRGB, lcms2's built-in profile; the pixels carry no profile afterwards (an
///   untagged image is sRGB on iOS, and an attachment's bytes count).
/// - **Adobe inversion**: Adobe applications store CMYK inverted (0 = full ink); such input is
///   read as lcms2's `TYPE_CMYK_8_REV` reads it, each byte as 255 − b.
/// - **Speed**: lcms2 builds the transform (its 17⁴-node table, about 30 ms), and
///   `CMYKLookupTable` evaluates that table in our own loop, with lcms2's integer arithmetic:
///   the same bytes as `cmsDoTransform` on an 8-bit transform, in about 0.6 of its time.
/// - **Errors**: each transform is built in an lcms2 context of its own whose error handler
///   records lcms2's messages (`ErrorLog`); a profile lcms2 cannot read or link fails with them.
/// - **Threads**: building happens on the calling thread in a private context, deleted with the
///   profiles and the lcms2 transform before `make` returns when the table is used (kept with
///   the transform when lcms2 converts itself). A built transform is used from any number of
///   threads at once: the table is immutable, and since lcms2 2.3 every `cmsDoTransform` call
///   works on its own copy of the one-pixel cache.
/// - **Memory**: the table, 17⁴ grid points × 3 channels × 2 bytes, about 0.5 MB, and 9 KB of
///   per-byte offsets (or lcms2's own transform, about as large, when it converts itself).
final class CMYKColorTransform: @unchecked Sendable {
    /// Why a profile cannot be used, in words for a warning.
    struct Failure: Error, Equatable { let message: String }

    /// What converts: lcms2's table in our own loop, or lcms2 itself when the table could not
    /// be read (never seen; `CMYKLookupTable.init` says when).
    private enum Evaluator {
        case table(CMYKLookupTable, inverted: Bool)
        /// The transform, its context, and the log its error handler reaches.
        case lcms2(cmsHTRANSFORM, cmsContext, ErrorLog)
    }

    private let evaluator: Evaluator
    /// The profile's description tag ("U.S. Web Coated (SWOP) v2"), or nil when it has none.
    let profileDescription: String?

    /// The lcms2 rendering intent and flags of a transform.
    enum Rendering: Equatable, Sendable {
        case perceptual
        case relativeWithBlackPointCompensation

        /// In words, for notes.
        var name: String {
            switch self {
            case .perceptual: "perceptual intent"
            case .relativeWithBlackPointCompensation: "relative colorimetric intent, black point compensation"
            }
        }

        var intent: UInt32 {
            self == .perceptual ? UInt32(INTENT_PERCEPTUAL) : UInt32(INTENT_RELATIVE_COLORIMETRIC)
        }

        var flags: UInt32 { self == .perceptual ? 0 : UInt32(cmsFLAGS_BLACKPOINTCOMPENSATION) }
    }

    private init(_ evaluator: Evaluator, description: String?) {
        self.evaluator = evaluator
        self.profileDescription = description
    }

    deinit {
        // The transform allocates from its context: delete it first.
        if case .lcms2(let transform, let context, _) = evaluator {
            cmsDeleteTransform(transform)
            cmsDeleteContext(context)
        }
    }

    /// True when the conversion runs in `CMYKLookupTable` (for tests).
    var usesTable: Bool {
        if case .table = evaluator { return true }
        return false
    }

    /// A transform from `profile` (a CMYK ICC profile) to sRGB, for CMYK stored `inverted`
    /// (Adobe) or as plain ink amounts; the failure says why the profile cannot be used.
    static func make(
        profile: [UInt8], inverted: Bool, rendering: Rendering = .perceptual
    ) -> Result<CMYKColorTransform, Failure> {
        if let problem = headerProblem(profile) { return .failure(Failure(message: problem)) }
        let log = ErrorLog()
        // The context's error handler and the plugin reach the log through a raw pointer.
        defer { withExtendedLifetime(log) {} }
        guard let context = cmsCreateContext(nil, Unmanaged.passUnretained(log).toOpaque()) else {
            return .failure(Failure(message: "lcms2 could not create a context (out of memory)"))
        }
        cmsSetLogErrorHandlerTHR(context, recordError)
        // The plugin reads the table lcms2's optimiser makes of the transform; lcms2 copies the
        // struct when it registers it.
        var plugin = cmsPluginOptimization()
        plugin.base.Magic = UInt32(cmsPluginMagicNumber)
        plugin.base.ExpectedVersion = UInt32(LCMS_VERSION)
        plugin.base.Type = UInt32(cmsPluginOptimizationSig)
        plugin.OptimizePtr = captureTable
        if withUnsafeMutablePointer(to: &plugin, { cmsPluginTHR(context, $0) }) == 0 {
            // lcms2 older than the headers: no table, lcms2 converts; its complaint is no
            // reason for a later failure.
            log.forget()
        }
        var handed = false
        defer { if !handed { cmsDeleteContext(context) } }

        let input = profile.withUnsafeBytes { cmsOpenProfileFromMemTHR(context, $0.baseAddress, UInt32($0.count)) }
        guard let input else { return .failure(Failure(message: log.reason("lcms2 cannot read the ICC profile"))) }
        defer { cmsCloseProfile(input) }
        guard cmsGetColorSpace(input) == cmsSigCmykData else {
            return .failure(Failure(message: "the ICC profile does not describe CMYK"))
        }
        guard let sRGB = cmsCreate_sRGBProfileTHR(context) else {
            return .failure(Failure(message: log.reason("lcms2 could not make its sRGB profile")))
        }
        defer { cmsCloseProfile(sRGB) }
        let format = inverted ? PA_LCMS_TYPE_CMYK_8_REV : PA_LCMS_TYPE_CMYK_8
        guard
            let made = cmsCreateTransformTHR(
                context, input, format, sRGB, PA_LCMS_TYPE_RGB_8, rendering.intent, rendering.flags)
        else {
            return .failure(Failure(message: log.reason("lcms2 cannot build a transform from the ICC profile")))
        }
        let description = description(of: input)
        if let table = CMYKLookupTable(nodes: log.tableNodes, checkedAgainst: made, inverted: inverted) {
            cmsDeleteTransform(made)
            return .success(CMYKColorTransform(.table(table, inverted: inverted), description: description))
        }
        log.tableNodes = nil  // 0.5 MB nothing reads
        handed = true
        return .success(CMYKColorTransform(.lcms2(made, context, log), description: description))
    }

    /// Converts `rows` rows of `width` CMYK pixels (4 bytes each, `sourceStride` bytes apart)
    /// to RGB (3 bytes each, `destinationStride` bytes apart): lcms2's 8-bit results, bit for bit.
    func convert(
        _ source: UnsafePointer<UInt8>, stride sourceStride: Int, into destination: UnsafeMutablePointer<UInt8>,
        stride destinationStride: Int, width: Int, rows: Int
    ) {
        guard width > 0, rows > 0 else { return }
        switch evaluator {
        case .table(let table, let inverted):
            table.convert(
                source, stride: sourceStride, into: destination, stride: destinationStride, width: width, rows: rows,
                inverted: inverted)
        case .lcms2(let transform, _, _):
            cmsDoTransformLineStride(
                transform, source, destination, UInt32(width), UInt32(rows), UInt32(sourceStride),
                UInt32(destinationStride), 0, 0)
        }
    }

    /// What is wrong with the ICC header before lcms2 sees it: shorter than the 128-byte header
    /// and tag count, or a colour space other than CMYK (an RGB profile in a CMYK file).
    static func headerProblem(_ profile: [UInt8]) -> String? {
        guard profile.count >= 132 else { return "the ICC profile is too short (\(profile.count) bytes)" }
        let space = String(decoding: profile[16..<20], as: UTF8.self)
        guard space == "CMYK" else {
            let shown = space.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " ") } ? space : "?"
            return "the ICC profile describes '\(shown.trimmingCharacters(in: .whitespaces))', not CMYK"
        }
        return nil
    }

    /// The profile's description tag, ASCII, at most 255 bytes.
    private static func description(of profile: cmsHPROFILE) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let length = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", &buffer, UInt32(buffer.count))
        guard length > 1 else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }
}

extension CMYKColorTransform {
    /// lcms2's error messages for one context, in order; lcms2 calls the handler from the
    /// thread that hit the error, so it is locked. At most `limit` messages are kept.
    final class ErrorLog: @unchecked Sendable {
        private let lock = NSLock()
        private var messages: [String] = []
        static let limit = 8
        /// The table of the 8-bit CMYK → RGB transform, as `captureTable` read it (the context's
        /// user data is this log, so the plugin finds it here too). Not locked: lcms2 calls the
        /// plugin on the building thread, the only one that reads it.
        var tableNodes: [UInt16]?

        /// Drops the messages recorded so far.
        func forget() { lock.withLock { messages.removeAll() } }

        func record(_ message: String) {
            lock.withLock { if messages.count < Self.limit { messages.append(message) } }
        }

        /// `summary` followed by lcms2's first message, when it gave one.
        func reason(_ summary: String) -> String {
            let first = lock.withLock { messages.first }
            return first.map { "\(summary): \($0)" } ?? summary
        }
    }
}

/// lcms2's log handler (not variadic: lcms2 formats the text before calling it): appends to
/// the `ErrorLog` in the context's user data.
private func recordError(_ context: cmsContext?, _ code: cmsUInt32Number, _ text: UnsafePointer<CChar>?) {
    guard let context, let user = cmsGetContextUserData(context) else { return }
    let log = Unmanaged<CMYKColorTransform.ErrorLog>.fromOpaque(user).takeUnretainedValue()
    // lcms2 quotes tag and type signatures from the file as they are: keep printable ASCII only.
    let message = text.map { String(cString: $0) } ?? "lcms2 error \(code)"
    let printable = message.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" }
    log.record(String(printable))
}

/// An lcms2 optimisation plugin that optimises as lcms2 does and keeps what it makes. For the
/// 8-bit CMYK → RGB transform it runs lcms2's own optimiser with `cmsFLAGS_FORCE_CLUT`, which
/// goes straight to `OptimizeByResampling` (after the same `PreOptimize`): the step lcms2's
/// default chain ends in for CMYK input, since its curve, matrix-shaper and linearisation
/// optimisations take only curves or RGB. It keeps the table (`CMYKLookupTable.nodes(of:)`) in
/// the context's `ErrorLog` and hands lcms2 the optimised pipeline, built once. By lcms2 2.14's
/// source (cmsopt.c) that is the pipeline the default chain builds; `CMYKLookupTableTests`
/// compares the result with a transform lcms2 built without the plugin. If the forced run fails, the pipeline is restored and
/// the plugin declines: lcms2 goes on as it always does (and `CMYKLookupTable` is not used).
/// Other pipelines the context optimises (black point detection's) have other formats and are
/// left alone.
private func captureTable(
    _ lut: UnsafeMutablePointer<OpaquePointer?>?, _ intent: cmsUInt32Number,
    _ inputFormat: UnsafeMutablePointer<cmsUInt32Number>?, _ outputFormat: UnsafeMutablePointer<cmsUInt32Number>?,
    _ flags: UnsafeMutablePointer<cmsUInt32Number>?
) -> cmsBool {
    guard let lut, let pipeline = lut.pointee, let inputFormat, let outputFormat, let flags,
        inputFormat.pointee == PA_LCMS_TYPE_CMYK_8 || inputFormat.pointee == PA_LCMS_TYPE_CMYK_8_REV,
        outputFormat.pointee == PA_LCMS_TYPE_RGB_8,
        let context = cmsGetPipelineContextID(pipeline), let user = cmsGetContextUserData(context)
    else { return 0 }
    let log = Unmanaged<CMYKColorTransform.ErrorLog>.fromOpaque(user).takeUnretainedValue()
    var forced = flags.pointee | UInt32(cmsFLAGS_FORCE_CLUT)
    // On success lcms2 frees the pipeline and puts the optimised one in its place; on failure
    // it leaves the pipeline as it was.
    guard _cmsOptimizePipeline(context, lut, intent, inputFormat, outputFormat, &forced) != 0 else { return 0 }
    // OptimizeByResampling always puts its pipeline in place on success (cmsopt.c).
    guard let made = lut.pointee else { preconditionFailure("lcms2's optimiser succeeded without a pipeline") }
    flags.pointee = forced & ~UInt32(cmsFLAGS_FORCE_CLUT)  // what the default chain leaves
    log.tableNodes = CMYKLookupTable.nodes(of: made)
    return 1
}
