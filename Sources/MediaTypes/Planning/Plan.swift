/// What becomes of one file, decided by `Planner.plan` alone: the action, the format written,
/// the size it is fitted to, what the engine may still change, and on a refusal its reason.
/// `verify` prints it, `prepare`, the library and `serve` carry it out; the engine reports at
/// most one of `mayDeviate` and nothing else.
///
///     let plan = Planner.plan(facts, policy: AttachmentPolicy())
///     plan.action     // .fit: a 4000x3000 photo is over the 2048 long side
///     plan.output     // .jpeg
///     plan.target     // 2048×1536
///     plan.asIs       // .accepted: iOS itself would take the file as it is
public struct Plan: Sendable, Hashable {
    /// What is done with the file.
    public enum Action: String, Sendable, Hashable, CaseIterable, Codable {
        /// Written byte for byte, under the name it has.
        case passThrough = "pass-through"
        /// Written byte for byte, under the extension of its real type (its name's was wrong or missing).
        case rename
        /// A format iOS refuses (WebP, HEIC, AVIF), converted to JPEG or PNG.
        case convert
        /// A format iOS takes, re-encoded to fit the limits (byte cap, long side, decoded budget),
        /// turned upright, or turned from CMYK to RGB.
        case fit
        /// An animation re-encoded as an animated GIF (an animated WebP, a GIF over a limit).
        case reencodeAnimation = "reencode-animation"
        /// An animation over the frame or duration cap: its first frame, as a still.
        case firstFrame = "first-frame"
        /// Refused: nothing is written (`refusal`).
        case refuse

        /// The verdict `verify` gives for it: `accepted` (sent unchanged), `transcode` (changed,
        /// or renamed) or `rejected`.
        public var verdict: String {
            switch self {
            case .passThrough: "accepted"
            case .refuse: "rejected"
            case .rename, .convert, .fit, .reencodeAnimation, .firstFrame: "transcode"
            }
        }

        /// True when the bytes are written as they came (`passThrough`, `rename`).
        public var keepsBytes: Bool { self == .passThrough || self == .rename }
    }

    /// What the engine may change once the pixels are decoded, and the plan allows.
    public enum Deviation: String, Sendable, Hashable, CaseIterable, Codable {
        /// An image whose header declares alpha turned out fully opaque: written as JPEG, not PNG.
        case opaqueAlphaAsJPEG = "opaque-alpha-as-jpeg"
        /// An opaque image planned as PNG that no PNG size fits under the byte cap at the planned
        /// size: written as JPEG (keeping its size matters more on a lock screen than losslessness).
        case pngOverCapAsJPEG = "png-over-cap-as-jpeg"
        /// An animation no GIF size fits within the byte cap: its first frame, as a still.
        case animationAsFirstFrame = "animation-as-first-frame"
    }

    /// What iOS does with the file as it is, under its name, before any preparing.
    public enum AsIs: Sendable, Hashable {
        /// iOS takes the file unchanged.
        case accepted
        /// iOS refuses the file with this code (a WebP 101, over the cap 102, damaged 105).
        case rejected(UNErrorCode)

        /// "accepted" or "rejected".
        public var verdict: String {
            if case .rejected = self { return "rejected" }
            return "accepted"
        }

        /// The code iOS would refuse the file with; nil when it takes it.
        public var code: UNErrorCode? {
            if case .rejected(let code) = self { return code }
            return nil
        }
    }

    /// Why a file is not sent as it is: each limit or rule it is over, as data.
    public enum Change: Sendable, Hashable {
        /// Its name's extension does not say its type ("" for no extension).
        case misnamed(fileExtension: String)
        /// iOS does not take the format (WebP, HEIC, HEIF, AVIF).
        case formatRefusedByIOS(MediaFormat)
        /// Over iOS's byte cap for images.
        case overByteCap(bytes: Int, cap: Int)
        /// Over the long side (upright size).
        case overLongSide(Size, limit: Int)
        /// Within the long side, but width × height × 4 is over the decoded budget.
        case overDecodedBudget(Size, budget: Int)
        /// Stored turned (Exif or XMP orientation).
        case turned(Orientation)
        /// A CMYK or YCCK JPEG.
        case cmyk
        /// An animation over the frame cap.
        case overFrameCap(frames: Int, cap: Int)
        /// An animation over the duration cap.
        case overDurationCap(milliseconds: Int, cap: Int)
    }

    /// Notes the plan foresees that do not change the action.
    public enum Note: Sendable, Hashable {
        /// A claim disagrees with the bytes (lenient policy: the bytes win).
        case claimDisagrees(TypeMismatch)
        /// A claim that could not be read as a type.
        case claimUnreadable(TypeClaim)
        /// An image sequence (APNG, an animated HEIF) converted or fitted: only its first frame
        /// is kept. nil frames: the header does not count them.
        case firstFrameOnly(MediaFormat, frames: Int?)
        /// A movie or sound track iOS does not reliably play.
        case trackNotPlayable(MovieTrack)
    }

    /// What is done.
    public var action: Action
    /// The format written: the input's own when its bytes are kept; JPEG, PNG or GIF otherwise;
    /// nil on a refusal.
    public var output: MediaFormat?
    /// The upright size the output is fitted to (for an animation, the largest size tried); nil
    /// when the bytes are kept or the file is refused.
    public var target: Size?
    /// What the engine may change once it has decoded the pixels; it may change nothing else.
    public var mayDeviate: Set<Deviation>
    /// Why the file is refused; nil unless `action` is `.refuse`.
    public var refusal: Refusal?
    /// Why the file is not sent as it is; empty on a passthrough and a refusal.
    public var changes: [Change]
    /// What the plan foresees worth a look (claims, a lost animation, a track iOS may not play).
    public var notes: [Note]
    /// What iOS does with the file as it is.
    public var asIs: AsIs

    /// A plan with every field given; normally made by `Planner.plan`.
    public init(
        action: Action, output: MediaFormat?, target: Size? = nil, mayDeviate: Set<Deviation> = [],
        refusal: Refusal? = nil, changes: [Change] = [], notes: [Note] = [], asIs: AsIs
    ) {
        self.action = action
        self.output = output
        self.target = target
        self.mayDeviate = mayDeviate
        self.refusal = refusal
        self.changes = changes
        self.notes = notes
        self.asIs = asIs
    }

    /// The refusal's code, when the plan refuses.
    public var code: UNErrorCode? { refusal?.code }
}
