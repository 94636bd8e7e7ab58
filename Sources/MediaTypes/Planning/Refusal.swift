/// Why a file is refused: the reason as data, made only by `Planner`. Text is made at the edge
/// (`description(naming:)`), in each face's terms; `code` is the UNErrorCode iOS would give and
/// `kind` the word a face groups refusals by.
///
///     let plan = Planner.plan(MediaFacts(bytes: Array("<html>".utf8), fileExtension: "jpg"), policy: .init())
///     plan.refusal          // .notMedia(.html)
///     plan.refusal?.code    // .unrecognizedType (101)
///     plan.refusal?.kind    // .notMedia: "not-media"
public enum Refusal: Sendable, Hashable {
    /// The bytes are no media format at all, whatever their name or URL says (101).
    case notMedia(ContentGuess)
    /// A media format iOS refuses and this library does not convert (101): FLAC, BMP, TIFF, a
    /// QuickTime movie (its tracks say whether a remux would do).
    case notAccepted(MediaFormat, tracks: [MovieTrack])
    /// Over the byte cap that applies to it (102): iOS's for audio and movies, the image input
    /// cap for images (the engine shrinks images within it). `atLeast`: the download was stopped
    /// at the cap, so `bytes` is where it stopped.
    case overCap(ByteCap, bytes: Int, atLeast: Bool)
    /// The header states more pixels than the pixel budget (102).
    case overPixelBudget(MediaFormat, width: Int, height: Int, budget: Int)
    /// A claim about the file disagrees with its bytes, and the policy is strict (101).
    case claimMismatch(TypeMismatch)
    /// Bytes of a format we know, damaged (105).
    case damaged(MediaFormat, Damage)
    /// A variant of a format we know that its decoder does not read (101).
    case unsupportedVariant(MediaFormat, codec: String, detail: String)
    /// No size of the image fits the byte cap: a refusal of this library's own, which iOS never
    /// sees (no code).
    case noSizeFits(cap: Int, smallest: Int)
    /// A thumbnail was asked of media with no picture to take it from (no code: iOS takes the
    /// file itself).
    case noPicture(MediaFormat)

    /// What kind of damage.
    public enum Damage: Sendable, Hashable {
        /// The sniffer found the header lying (cut short, an impossible field).
        case header(SniffError)
        /// The codec could not read it.
        case corrupt(detail: String)
        /// The image data is cut short or corrupt.
        case data(detail: String)
        /// The Exif block is malformed (refused under a strict policy only).
        case exif(detail: String)
    }

    /// The cap a size is over.
    public enum ByteCap: Sendable, Hashable {
        /// iOS's cap for the category (`AppleRules.byteCap(for:)`).
        case ios(MediaCategory, cap: Int)
        /// The largest image taken in to be shrunk (`AttachmentPolicy.imageInputCap`).
        case imageInput(cap: Int)
        /// The largest body of any kind, for one refused before its first bytes said what it is
        /// (by its declared length).
        case anyMedia(cap: Int)

        /// The cap in bytes.
        public var bytes: Int {
            switch self {
            case .ios(_, let cap), .imageInput(let cap), .anyMedia(let cap): cap
            }
        }
    }

    /// The word faces group refusals by (`kind.rawValue` in manifests and JSON).
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// `Refusal.notMedia`.
        case notMedia = "not-media"
        /// `Refusal.notAccepted`.
        case notAccepted = "not-accepted"
        /// `Refusal.overCap`.
        case overCap = "over-cap"
        /// `Refusal.overPixelBudget`.
        case overPixelBudget = "over-pixel-budget"
        /// `Refusal.claimMismatch`.
        case claimMismatch = "claim-mismatch"
        /// `Refusal.damaged`.
        case damaged
        /// `Refusal.unsupportedVariant`.
        case unsupportedVariant = "unsupported-variant"
        /// `Refusal.noSizeFits`.
        case noSizeFits = "no-size-fits"
        /// `Refusal.noPicture`.
        case noPicture = "no-picture"
    }

    /// The one table from reason to code: what iOS would refuse the file with; nil for refusals
    /// of this library's own.
    public var code: UNErrorCode? {
        switch self {
        case .notMedia, .notAccepted, .claimMismatch, .unsupportedVariant: .unrecognizedType
        case .overCap, .overPixelBudget: .invalidFileSize
        case .damaged: .corrupt
        case .noSizeFits, .noPicture: nil
        }
    }

    /// The word the refusal is grouped by.
    public var kind: Kind {
        switch self {
        case .notMedia: .notMedia
        case .notAccepted: .notAccepted
        case .overCap: .overCap
        case .overPixelBudget: .overPixelBudget
        case .claimMismatch: .claimMismatch
        case .damaged: .damaged
        case .unsupportedVariant: .unsupportedVariant
        case .noSizeFits: .noSizeFits
        case .noPicture: .noPicture
        }
    }

    /// The setting that would take the file anyway, when one would.
    public var setting: Setting? {
        switch self {
        case .overPixelBudget: .pixelBudget
        case .damaged(_, .data): .acceptDamaged
        case .claimMismatch, .damaged(_, .exif): .strict
        case .overCap(.imageInput, _, _): .imageInputCap
        default: nil
        }
    }
}
