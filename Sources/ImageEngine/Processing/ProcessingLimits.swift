import MediaTypes

/// What a processed image must satisfy, and how to get there.
///
///     var limits = ProcessingLimits(byteCap: 1_000_000, thumbnailSize: 256)
///     limits.maxLongSide = 1024
///     let result = try processor.process(data, sniffed: sniffed, limits: limits)
///
/// Sizes are in bytes with 10^6-byte megabytes, as in `AppleRules`.
public struct ProcessingLimits: Sendable, Hashable {
    /// The category's byte cap: 10 MB for images.
    public var byteCap: Int = 10_000_000
    /// The output's long side fits in a `maxLongSide` square box.
    public var maxLongSide: Int = 2048
    /// `width * height * 4` of the output must fit: the per-image decoded budget
    /// (`AppleRules.decodedBudget`).
    public var decodedBudget: Int = 24_000_000

    /// The per-image decoded budget, under its old name.
    @available(*, deprecated, renamed: "decodedBudget")
    public var memoryBudget: Int {
        get { decodedBudget }
        set { decodedBudget = newValue }
    }
    /// JPEG quality of re-encodes.
    public var quality: Int = 85
    /// The quality search stops here; below it the image is shrunk instead.
    public var qualityFloor: Int = 60
    /// Side of the square box the thumbnail fits in, e.g. 256; nil makes no thumbnail.
    public var thumbnailSize: Int? = nil
    /// JPEG quality of thumbnails.
    public var thumbnailQuality: Int = 80
    /// Let an image smaller than `maxLongSide` grow to it (never done by default).
    public var allowUpscale: Bool = false
    /// How files are judged (rules, pixel budget, strictness, damage), the one value `verify`
    /// and `prepare` share: the engine refuses headers over `policy.pixelBudget`, fails on codec
    /// warnings when `policy.strict`, uses damaged data only with `policy.acceptDamaged`, and
    /// passes through the formats `policy.rules` accept.
    public var policy = AttachmentPolicy()
    /// Read every scan of a progressive JPEG even when the output needs only the first ones
    /// (`DecodeOptions.validateAllScans`): decoded at 1/8, an image uses only each block's DC
    /// coefficient, which the first scans finish. true, the default, finds damage in any scan,
    /// as `verify` does, so `prepare` and `verify` agree on every file. false skips the AC
    /// scans of such decodes (thumbnails from progressive photos, 40-90 % less decode time),
    /// and damage there goes unseen; a passthrough is always validated in full.
    public var validateAllScans: Bool = true
    /// Decode a large image (8 MP or more decoded) on a second thread, ahead of the resizer,
    /// so one image uses two cores (a 7000×7000 PNG: about a third less time). The output is
    /// the same bytes either way. true by default; a server that wants one thread per image
    /// (as many workers as cores) turns it off.
    public var decodeAhead: Bool = true
    /// Resize a YCbCr JPEG's planes into a JPEG instead of going through RGB
    /// (`ImageProcessor.transcodePlanes`). On by default; the tests turn it off to compare.
    package var resizesPlanes: Bool = true
    /// Most frames an animation (animated WebP, GIF) may have to be kept animated: 300. Our own
    /// policy, not Apple's (Apple documents only the 10 MB cap): every frame is decoded, resized
    /// and quantised once per size tried, so the cap bounds the work per item (300 frames at
    /// 2048 px is about a minute of one core); at 10 fps it is 30 s, past what a notification
    /// shows. Over it, the first frame is kept as a still, with a warning that says so.
    public var maxAnimationFrames: Int = 300
    /// Longest total duration, in milliseconds, an animation may have to be kept animated:
    /// 60 000 (one minute). Our own policy too: a notification is looked at for seconds, and a
    /// longer animation is nearly always a video better sent as one. Over it, the first frame
    /// is kept as a still, with a warning.
    public var maxAnimationDuration: Int = 60_000

    /// Limits with the defaults documented on the properties unless given: 10 MB, 2048 px
    /// long side, 24 MB decoded memory, quality 85 down to 60, no thumbnail, no upscaling, every
    /// scan validated, and the default `AttachmentPolicy` (50 MP pixel budget, lenient, damaged
    /// images refused). `decodeAhead` is not a parameter: it starts on; set the property to turn
    /// it off.
    public init(
        byteCap: Int = 10_000_000, maxLongSide: Int = 2048, decodedBudget: Int = 24_000_000, quality: Int = 85,
        qualityFloor: Int = 60, thumbnailSize: Int? = nil, thumbnailQuality: Int = 80, allowUpscale: Bool = false,
        validateAllScans: Bool = true, policy: AttachmentPolicy = AttachmentPolicy()
    ) {
        self.byteCap = byteCap
        self.maxLongSide = maxLongSide
        self.decodedBudget = decodedBudget
        self.quality = quality
        self.qualityFloor = qualityFloor
        self.thumbnailSize = thumbnailSize
        self.thumbnailQuality = thumbnailQuality
        self.allowUpscale = allowUpscale
        self.validateAllScans = validateAllScans
        self.policy = policy
    }

    /// `base` with `policy` in it, its byte cap and decoded budget no looser than
    /// `policy.rules`'.
    public init(_ base: ProcessingLimits, policy: AttachmentPolicy) {
        self = base
        self.policy = policy
        byteCap = min(byteCap, policy.rules.imageByteCap)
        decodedBudget = min(decodedBudget, policy.rules.decodedBudget)
    }
}

/// The policy's fields under their old names, from before `policy` held them.
extension ProcessingLimits {
    /// `policy.pixelBudget`, under its old name.
    @available(*, deprecated, renamed: "policy.pixelBudget")
    public var pixelBudget: Int {
        get { policy.pixelBudget }
        set { policy.pixelBudget = newValue }
    }

    /// `policy.strict`, under its old name.
    @available(*, deprecated, renamed: "policy.strict")
    public var strict: Bool {
        get { policy.strict }
        set { policy.strict = newValue }
    }

    /// `policy.acceptDamaged`, under its old name.
    @available(*, deprecated, renamed: "policy.acceptDamaged")
    public var acceptDamaged: Bool {
        get { policy.acceptDamaged }
        set { policy.acceptDamaged = newValue }
    }

    /// `policy.rules`, under its old name.
    @available(*, deprecated, renamed: "policy.rules")
    public var rules: AppleRules {
        get { policy.rules }
        set { policy.rules = newValue }
    }
}

extension AttachmentPolicy {
    /// The engine's limits for this policy: `base` with the policy in it, byte cap and decoded
    /// budget no looser than the rules' (`ProcessingLimits.init(_:policy:)`).
    package func limits(_ base: ProcessingLimits = ProcessingLimits()) -> ProcessingLimits {
        ProcessingLimits(base, policy: self)
    }
}
