/// Everything the planner knows of one file, read once per item and carried along: the sniffed
/// header, the claims made about it, the name it goes by and, for the images the engine decodes,
/// what their codec header and metadata say.
///
///     var facts = MediaFacts(bytes: Array(data), fileExtension: "jpg")    // sniffed here, once
///     facts.image = try ImageProcessor.imageFacts(data, facts: facts, limits: limits)  // the engine's read
///     let plan = Planner.plan(facts, policy: AttachmentPolicy())
///
/// Nothing in it is a decision: `Planner.plan` makes that from it.
public struct MediaFacts: Sendable, Hashable {
    /// What the bytes are and what their header states; `.unknown` when no signature matched,
    /// and the format the bytes were recognised as when `headerDamage` is set.
    public var sniffed: SniffedType
    /// The header of a recognised format lies (cut short, an impossible field): the bytes are
    /// that format, damaged.
    public var headerDamage: SniffError?
    /// What bytes of no known format look like (HTML, text, empty …); `.binary` when they are media.
    public var looksLike: ContentGuess
    /// The file's size in bytes (all of it, even when only its header was read).
    public var byteCount: Int
    /// The extension of the name the file goes by: "" for a name without one, nil for bytes
    /// without a name (a download before it is written). iOS types a file by it.
    public var fileExtension: String?
    /// What else says what the file is: `media_type`, Content-Type, the URL's extension.
    public var claims: [TypeClaim]
    /// For JPEG, PNG, WebP, HEIC, HEIF, AVIF and GIF: what the engine read of the codec header and
    /// metadata (stored size, orientation, colour space, an animation's frames and duration).
    public var image: ImageFacts?
    /// What stopped the engine reading `image`: a damaged header, an unsupported variant, a
    /// malformed Exif block under a strict policy, a header over the pixel budget.
    public var imageProblem: DecodeProblem?

    /// Facts with every field given.
    public init(
        sniffed: SniffedType, headerDamage: SniffError? = nil, looksLike: ContentGuess = .binary, byteCount: Int,
        fileExtension: String? = nil, claims: [TypeClaim] = []
    ) {
        self.sniffed = sniffed
        self.headerDamage = headerDamage
        self.looksLike = looksLike
        self.byteCount = byteCount
        self.fileExtension = fileExtension
        self.claims = claims
    }

    /// The facts of a file whose first bytes are `window` (its whole content, or enough of its
    /// header: `Sniffer.headerWindow`, `Sniffer.jpegHeaderWindow`) and whose size is
    /// `byteCount`: the one sniff of the item.
    public init(window: [UInt8], byteCount: Int, fileExtension: String? = nil, claims: [TypeClaim] = []) {
        self.init(sniffed: SniffedType(format: .unknown), byteCount: byteCount, fileExtension: fileExtension, claims: claims)
        do {
            sniffed = try Sniffer.sniff(window)
        } catch {
            sniffed = SniffedType(format: error.format)
            headerDamage = error
        }
        if sniffed.format == .unknown, let format = DamagedSignature.format(of: Array(window.prefix(64))) {
            sniffed = SniffedType(format: format)
            headerDamage = .invalidHeader(format: format, detail: "its signature is damaged")
        }
        if sniffed.format == .unknown || sniffed.format == .pdf { looksLike = ContentGuess.of(window) }
    }

    /// `init(window:…)` over the whole file.
    public init(bytes: [UInt8], fileExtension: String? = nil, claims: [TypeClaim] = []) {
        self.init(window: bytes, byteCount: bytes.count, fileExtension: fileExtension, claims: claims)
    }

    /// What the bytes are.
    public var format: MediaFormat { sniffed.format }
}

/// What the engine read of an image before any pixel: the header through its codec, the
/// orientation from Exif or XMP, and for an animation its container's facts.
public struct ImageFacts: Sendable, Hashable {
    /// The size as stored, before `orientation` turns it.
    public var stored: Size
    /// How the stored pixels turn upright; `.up` without such metadata.
    public var orientation: Orientation
    /// A CMYK or YCCK JPEG (always re-encoded as RGB).
    public var isCMYK: Bool
    /// The orientation came from XMP (`tiff:Orientation`), there being no Exif.
    public var orientationFromXMP: Bool
    /// For a GIF or an animated WebP: canvas, frames, loop count and duration; nil for a still.
    public var animation: AnimationFacts?
    /// What the read noticed without stopping (a malformed Exif block read leniently as upright).
    public var notes: [String]

    /// Facts with every field given.
    public init(
        stored: Size, orientation: Orientation = .up, orientationFromXMP: Bool = false, isCMYK: Bool = false,
        animation: AnimationFacts? = nil, notes: [String] = []
    ) {
        self.stored = stored
        self.orientation = orientation
        self.orientationFromXMP = orientationFromXMP
        self.isCMYK = isCMYK
        self.animation = animation
        self.notes = notes
    }

    /// The stored size turned upright.
    public var upright: Size {
        orientation.swapsDimensions ? Size(width: stored.height, height: stored.width) : stored
    }
}

/// What an animation's container says before any frame is decoded.
public struct AnimationFacts: Sendable, Hashable {
    /// The logical screen (GIF) or canvas (WebP) every frame is drawn on.
    public var canvas: Size
    /// The frames the container lists.
    public var frames: Int
    /// How often it plays; 0 plays forever.
    public var loopCount: Int
    /// Every frame's duration, added up.
    public var durationMilliseconds: Int

    /// Facts with every field given.
    public init(canvas: Size, frames: Int, loopCount: Int, durationMilliseconds: Int) {
        self.canvas = canvas
        self.frames = frames
        self.loopCount = loopCount
        self.durationMilliseconds = durationMilliseconds
    }

    /// "640x480, 30 frames, 3000 ms, loops forever".
    public var summary: String {
        let loops = loopCount == 0 ? "loops forever" : "plays \(loopCount) time\(loopCount == 1 ? "" : "s")"
        return "\(canvas.width)x\(canvas.height), \(frames) frames, \(durationMilliseconds) ms, \(loops)"
    }
}

/// What the engine found in an image's bytes that stops it, as data: the planner turns it into
/// the refusal (`Planner.refusal(for:format:)`), so a problem found while reading the header for
/// `verify` and the same problem found while fitting the image for `prepare` read the same.
public enum DecodeProblem: Error, Sendable, Hashable {
    /// The codec could not read the image: its header or its data is broken beyond what it
    /// recovers from (`detail` is the codec's own words).
    case corrupt(detail: String)
    /// The codec read the image but its data is cut short or corrupt, and damaged images are
    /// not accepted (`AttachmentPolicy.acceptDamaged` would take what decodes).
    case damagedData(detail: String)
    /// A variant of the format the codec does not read (12-bit, arithmetic-coded …).
    case unsupported(codec: String, detail: String)
    /// The Exif block is malformed and the policy is strict.
    case malformedExif(detail: String)
    /// The codec's header states more pixels than the pixel budget.
    case pixelBudgetExceeded(width: Int, height: Int)
    /// Even the smallest size tried was over the byte cap.
    case cannotFit(cap: Int, smallest: Int)
}
