import Foundation

// The words for a plan: the one place a refusal, a change, a note or a deviation becomes text.
// Every face (the console, `--json`, the manifest, the report, HTTP bodies, the library's error
// descriptions) renders through these, naming settings as its own `SettingNames` spell them, so
// one file reads the same everywhere. Nothing reads this text back.

/// Byte counts for people, in 10^6-byte megabytes as Apple's caps are: "19.8 MB", "512 kB",
/// "42 bytes".
///
///     ByteSize.text(19_819_914)   // "19.8 MB"
///     ByteSize.text(10_000_000)   // "10 MB"
public enum ByteSize {
    /// `bytes` in the largest unit that keeps it over 1: bytes, kB or MB, one decimal at most.
    public static func text(_ bytes: Int) -> String {
        if bytes < 1_000 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        if bytes < 1_000_000 { return "\(trimmed(Double(bytes) / 1e3)) kB" }
        return "\(trimmed(Double(bytes) / 1e6)) MB"
    }

    /// One decimal, dropped when it is 0: 19.8, 10.
    private static func trimmed(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : String(format: "%.1f", tenths / 10)
    }

    /// "19.8 MB, over the 10 MB cap for images": the one way a size over a cap is said.
    public static func over(_ bytes: Int, cap: Int, for what: String, atLeast: Bool = false) -> String {
        let size = atLeast ? "more than \(text(cap))" : text(bytes)
        return "\(size), over the \(text(cap)) cap for \(what)"
    }
}

extension MediaCategory {
    /// "images", "audio", "movies": what a cap is for.
    public var plural: String {
        switch self {
        case .image: "images"
        case .audio: "audio"
        case .movie: "movies"
        }
    }
}

extension Refusal {
    /// What is wrong and what to do, naming settings as `names` spells them.
    public func description(naming names: SettingNames) -> String {
        switch self {
        case .notMedia(let guess):
            let advice =
                switch guess {
                case .html: " (a URL that serves a web page, such as an error or sign-in page, instead of the file)"
                case .json: " (often an API's error answer)"
                default: ""
                }
            return "not media: the bytes are \(guess.phrase)\(advice), not an image, sound or movie; send \(AppleRules.acceptedList)"
        case .notAccepted(let format, let tracks):
            return Self.notAcceptedText(format, tracks: tracks)
        case .overCap(.ios(let category, let cap), let bytes, let atLeast):
            return "\(ByteSize.over(bytes, cap: cap, for: category.plural, atLeast: atLeast)) iOS sets; make the file smaller"
        case .overCap(.anyMedia(let cap), let bytes, let atLeast):
            return "\(ByteSize.over(bytes, cap: cap, for: "any attachment", atLeast: atLeast)); make the file smaller"
        case .overCap(.imageInput(let cap), let bytes, let atLeast):
            return
                "\(ByteSize.over(bytes, cap: cap, for: "images taken in to be shrunk", atLeast: atLeast)); send a smaller file, or raise \(names[.imageInputCap])"
        case .overPixelBudget(_, let width, let height, let budget):
            let budgetText = Self.megapixels(Double(budget))
            var sizeText = Self.megapixels(Double(width) * Double(height), decimals: 1)
            if sizeText == budgetText { sizeText = Self.megapixels(Double(width) * Double(height)) }
            return
                "too large: \(width)x\(height) is \(sizeText) MP, over the pixel budget of \(budgetText) MP; refused from its header, before decoding (raise \(names[.pixelBudget]) if the file is trusted)"
        case .claimMismatch(let mismatch):
            return
                "type mismatch: \(mismatch); strict claims refuse it: correct the claim, or let the bytes decide (without \(names[.strict]))"
        case .damaged(let format, .header(let error)):
            return "the \(format.displayName) header is damaged: \(error)"
        case .damaged(let format, .corrupt(let detail)):
            return "corrupt \(format.displayName): \(DisplayText.escaped(detail))"
        case .damaged(let format, .data(let detail)):
            return
                "the \(format.displayName) image data is damaged (\(DisplayText.escaped(detail))); send a complete file, or use what decodes with \(names[.acceptDamaged])"
        case .damaged(_, .exif(let detail)):
            return
                "the Exif block is malformed: \(DisplayText.escaped(detail)); \(names[.strict]) refuses it (otherwise the image is treated as upright)"
        case .unsupportedVariant(_, let codec, let detail):
            return
                "\(codec) cannot decode this variant (\(DisplayText.escaped(detail))); iOS is unlikely to show it either: re-encode it as baseline 8-bit"
        case .noSizeFits(let cap, let smallest):
            return
                "the smallest encoding tried is \(ByteSize.text(smallest)), still over the \(ByteSize.text(cap)) cap; raise the cap or serve a simpler image"
        case .noPicture(let format):
            return "\(format.displayName) has no picture to make a thumbnail from; ask for the file itself"
        }
    }

    static func notAcceptedText(_ format: MediaFormat, tracks: [MovieTrack]) -> String {
        let refused = "is not accepted by iOS as a notification attachment, and it cannot be converted here"
        guard format == .mov, tracks.contains(where: { $0.kind != .other }) else {
            return "\(format.displayName) \(refused); convert it to \(suggestion(for: format)) before sending"
        }
        // A QuickTime movie: whether its tracks can move into MP4 as they are decides the advice.
        let described = "\(format.displayName) (\(MovieTrack.describe(tracks)))"
        if tracks.allSatisfy({ $0.fitsInMP4 && $0.playsOnIOS }) {
            return
                "\(described) \(refused); its tracks fit in MP4 as they are: remux it (ffmpeg -i in.mov -c copy -movflags +faststart out.mp4) before sending"
        }
        return "\(described) \(refused); convert it to MP4 (H.264 video, AAC audio) before sending"
    }

    private static func suggestion(for format: MediaFormat) -> String {
        switch format.category {
        case .image: "JPEG or PNG"
        case .audio: "M4A or MP3"
        case .movie: "MP4 (H.264)"
        case nil: AppleRules.acceptedList
        }
    }

    /// Pixels as megapixels: 280_000_000 as "280", 152_180_000 with one decimal as "152.2",
    /// 1_500 as "0.0015".
    static func megapixels(_ pixels: Double, decimals: Int? = nil) -> String {
        let mp = pixels / 1e6
        let text = decimals.map { String(format: "%.\($0)f", mp) } ?? String(format: "%.6f", mp)
        guard text.contains(".") else { return text }
        var trimmed = Substring(text)
        while trimmed.last == "0" { trimmed = trimmed.dropLast() }
        if trimmed.last == "." { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}

extension Plan.Change: CustomStringConvertible {
    /// One phrase: "4000x3000 is over the 2048-pixel long side".
    public var description: String {
        switch self {
        case .misnamed(let ext):
            let ext = ext.trimmingWhitespace
            return ext.isEmpty ? "the file has no extension" : "the file is named .\(DisplayText.escaped(ext))"
        case .formatRefusedByIOS(let format): return "iOS does not accept \(format.displayName)"
        case .overByteCap(let bytes, let cap): return ByteSize.over(bytes, cap: cap, for: "images")
        case .overLongSide(let size, let limit):
            return "\(size.width)x\(size.height) is over the \(limit)-pixel long side"
        case .overDecodedBudget(let size, let budget):
            return "\(size.width)x\(size.height) decodes to more than the \(ByteSize.text(budget)) decoded budget"
        case .turned(let orientation): return "it is stored turned (orientation \(orientation.rawValue))"
        case .cmyk: return "it is CMYK"
        case .overFrameCap(let frames, let cap): return "\(frames) frames is over the cap of \(cap) frames"
        case .overDurationCap(let milliseconds, let cap):
            return "it lasts \(milliseconds) ms, over the cap of \(cap) ms"
        }
    }
}

extension Plan.Note: CustomStringConvertible {
    /// One line for a warning list.
    public var description: String {
        switch self {
        case .claimDisagrees(let mismatch): return mismatch.description
        case .claimUnreadable(let claim):
            return "unrecognised \(claim.source.rawValue) '\(DisplayText.escaped(claim.value))'; going by the bytes"
        case .firstFrameOnly(let format, let frames):
            let count = frames.map { "\($0) frames" } ?? "an image sequence"
            return "animated \(format.displayName) (\(count)): only the first frame is kept"
        case .trackNotPlayable(let track):
            let target = track.kind == .video ? "H.264 (or HEVC)" : "AAC"
            return
                "the \(track.kind.rawValue) track is \(track.codecName) (\(track.code)), which iOS does not reliably play in a notification; re-encode it to \(target)"
        }
    }
}

extension Plan.Deviation: CustomStringConvertible {
    /// What the engine did instead of the plan's format, and why.
    public var description: String {
        switch self {
        case .opaqueAlphaAsJPEG: "its alpha channel is fully opaque: written as JPEG"
        case .pngOverCapAsJPEG: "no PNG fits the byte cap at this size, and the image is opaque: written as JPEG"
        case .animationAsFirstFrame: "no GIF size fits the byte cap: only the first frame is kept, as a still"
        }
    }
}

extension Plan {
    /// Why the file is refused or changed, and what to do, naming settings as `names` spells
    /// them; nil on a passthrough.
    ///
    ///     plan.reason(naming: .library)   // "prepare re-encodes it as JPEG: 4000x3000 is over the 2048-pixel long side"
    public func reason(naming names: SettingNames) -> String? {
        let out = output?.displayName ?? ""
        let said = changes.map(\.description).joined(separator: "; ")
        switch action {
        case .passThrough: return nil
        case .refuse: return refusal?.description(naming: names)
        case .rename:
            guard let output else { return said }
            let ext = output.fileExtension
            let named = changes.compactMap { if case .misnamed(let ext) = $0 { ext } else { nil } }.first ?? ""
            let name =
                named.trimmingWhitespace.isEmpty
                ? "the file has no extension" : "the file is named .\(DisplayText.escaped(named)) but its bytes are \(out)"
            return "\(name), and iOS goes by the extension: prepare writes it as .\(ext) (rename it to .\(ext) to send it as it is)"
        case .fit: return "prepare re-encodes it as \(out): \(said)"
        case .convert:
            let others = changes.filter { if case .formatRefusedByIOS = $0 { false } else { true } }
            let fits = others.isEmpty ? "" : " (\(others.map(\.description).joined(separator: "; ")))"
            return "iOS does not accept \(changes.notAcceptedFormat?.displayName ?? "the format"); prepare converts it to \(out)\(fits)"
        case .reencodeAnimation: return "prepare re-encodes the animation as a GIF: \(said)"
        case .firstFrame: return "only the first frame is kept, as \(out): \(said)"
        }
    }
}

extension [Plan.Change] {
    fileprivate var notAcceptedFormat: MediaFormat? {
        for change in self { if case .formatRefusedByIOS(let format) = change { return format } }
        return nil
    }
}
