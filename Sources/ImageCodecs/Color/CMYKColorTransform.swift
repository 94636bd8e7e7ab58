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
/// - **Adobe inversion**: Adobe applications store CMYK inverted (0 = full ink); such input
///   uses `TYPE_CMYK_8_REV`, so nothing is inverted by hand.
/// - **Errors**: each transform has an lcms2 context of its own whose error handler records
///   lcms2's messages (`ErrorLog`); a profile lcms2 cannot read or link fails with them.
/// - **Threads**: building happens on the calling thread in a private context. A built
///   transform is used from any number of threads at once: since lcms2 2.3 every
///   `cmsDoTransform` call works on its own copy of the one-pixel cache, and nothing else in
///   a transform changes after it is built (Debian 12 ships 2.14).
/// - **Memory**: the precalculated table of an 8-bit CMYK transform is 17⁴ grid points × 3
///   channels × 2 bytes, about 0.5 MB; the profile is closed once the transform is built.
final class CMYKColorTransform: @unchecked Sendable {
    /// Why a profile cannot be used, in words for a warning.
    struct Failure: Error, Equatable { let message: String }

    private let context: cmsContext
    private let transform: cmsHTRANSFORM
    /// Kept alive for the context's error handler, which reaches it through the user data.
    private let log: ErrorLog
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

    private init(context: cmsContext, transform: cmsHTRANSFORM, log: ErrorLog, description: String?) {
        self.context = context
        self.transform = transform
        self.log = log
        self.profileDescription = description
    }

    deinit {
        // The transform allocates from its context: delete it first.
        cmsDeleteTransform(transform)
        cmsDeleteContext(context)
    }

    /// A transform from `profile` (a CMYK ICC profile) to sRGB, for CMYK stored `inverted`
    /// (Adobe) or as plain ink amounts; the failure says why the profile cannot be used.
    static func make(
        profile: [UInt8], inverted: Bool, rendering: Rendering = .perceptual
    ) -> Result<CMYKColorTransform, Failure> {
        if let problem = headerProblem(profile) { return .failure(Failure(message: problem)) }
        let log = ErrorLog()
        guard let context = cmsCreateContext(nil, Unmanaged.passUnretained(log).toOpaque()) else {
            return .failure(Failure(message: "lcms2 could not create a context (out of memory)"))
        }
        cmsSetLogErrorHandlerTHR(context, recordError)
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
        handed = true
        return .success(
            CMYKColorTransform(context: context, transform: made, log: log, description: description(of: input)))
    }

    /// Converts `rows` rows of `width` CMYK pixels (4 bytes each, `sourceStride` bytes apart)
    /// to RGB (3 bytes each, `destinationStride` bytes apart).
    func convert(
        _ source: UnsafePointer<UInt8>, stride sourceStride: Int, into destination: UnsafeMutablePointer<UInt8>,
        stride destinationStride: Int, width: Int, rows: Int
    ) {
        guard width > 0, rows > 0 else { return }
        cmsDoTransformLineStride(
            transform, source, destination, UInt32(width), UInt32(rows), UInt32(sourceStride),
            UInt32(destinationStride), 0, 0)
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
