import MediaTypes

/// What a processed image must satisfy, and how to get there.
///
///     var limits = ProcessingLimits(byteCap: 1_000_000, thumbnailSize: 256)
///     limits.maxLongSide = 1024
///     let result = try processor.process(data, sniffed: sniffed, limits: limits)
///
/// Sizes are in bytes with 10^6-byte megabytes, as in `AppleRules`.
public struct ProcessingLimits: Sendable, Hashable {
    /// How files are judged and what they are fitted to (rules, long side, pixel budget,
    /// strictness, damage, animation caps): the one value the planner reads. The engine reads the
    /// fields below through it, so each is stored once.
    public var policy = AttachmentPolicy()

    /// iOS's byte cap for images (`policy.rules.imageByteCap`): 10 MB.
    public var byteCap: Int {
        get { policy.rules.imageByteCap }
        set { policy.rules.imageByteCap = newValue }
    }
    /// The output's long side fits in a `maxLongSide` square box (`policy.maxLongSide`).
    public var maxLongSide: Int {
        get { policy.maxLongSide }
        set { policy.maxLongSide = newValue }
    }
    /// `width * height * 4` of the output must fit: the per-image decoded budget
    /// (`policy.rules.decodedBudget`).
    public var decodedBudget: Int {
        get { policy.rules.decodedBudget }
        set { policy.rules.decodedBudget = newValue }
    }
    /// Let an image smaller than `maxLongSide` grow to it (`policy.allowUpscale`).
    public var allowUpscale: Bool {
        get { policy.allowUpscale }
        set { policy.allowUpscale = newValue }
    }
    /// Most frames an animation may have to be kept animated (`policy.maxAnimationFrames`).
    public var maxAnimationFrames: Int {
        get { policy.maxAnimationFrames }
        set { policy.maxAnimationFrames = newValue }
    }
    /// Longest duration, in milliseconds, an animation may have to be kept animated
    /// (`policy.maxAnimationDuration`).
    public var maxAnimationDuration: Int {
        get { policy.maxAnimationDuration }
        set { policy.maxAnimationDuration = newValue }
    }

    /// JPEG quality of re-encodes.
    public var quality: Int = 85
    /// The quality search stops here; below it the image is shrunk instead.
    public var qualityFloor: Int = 60
    /// Side of the square box the thumbnail fits in, e.g. 256; nil makes no thumbnail.
    public var thumbnailSize: Int? = nil
    /// JPEG quality of thumbnails.
    public var thumbnailQuality: Int = 80
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
    /// Limits with the defaults documented on the properties unless given: no thumbnail, quality
    /// 85 down to 60, every scan validated, and `policy`'s caps and sizes (by default 10 MB, a
    /// 2048 px long side, 24 MB decoded). A cap or size given here is set in the policy.
    /// `decodeAhead` is not a parameter: it starts on; set the property to turn it off.
    public init(
        byteCap: Int? = nil, maxLongSide: Int? = nil, decodedBudget: Int? = nil, quality: Int = 85,
        qualityFloor: Int = 60, thumbnailSize: Int? = nil, thumbnailQuality: Int = 80, allowUpscale: Bool? = nil,
        validateAllScans: Bool = true, policy: AttachmentPolicy = AttachmentPolicy()
    ) {
        self.policy = policy
        if let byteCap { self.byteCap = byteCap }
        if let maxLongSide { self.maxLongSide = maxLongSide }
        if let decodedBudget { self.decodedBudget = decodedBudget }
        if let allowUpscale { self.allowUpscale = allowUpscale }
        self.quality = quality
        self.qualityFloor = qualityFloor
        self.thumbnailSize = thumbnailSize
        self.thumbnailQuality = thumbnailQuality
        self.validateAllScans = validateAllScans
    }

    /// `base`'s settings of the engine's own (quality, thumbnail, scans) with `policy`.
    public init(_ base: ProcessingLimits, policy: AttachmentPolicy) {
        self = base
        self.policy = policy
    }
}

extension AttachmentPolicy {
    /// The engine's limits for this policy: `base` with the policy in it, byte cap and decoded
    /// budget no looser than the rules' (`ProcessingLimits.init(_:policy:)`).
    package func limits(_ base: ProcessingLimits = ProcessingLimits()) -> ProcessingLimits {
        ProcessingLimits(base, policy: self)
    }
}
