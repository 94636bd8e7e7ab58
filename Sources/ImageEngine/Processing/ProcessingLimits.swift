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
    /// Images whose header promises more pixels are refused before anything is decoded.
    public var pixelBudget: Int = 50_000_000
    /// JPEG quality of re-encodes.
    public var quality: Int = 85
    /// The quality search stops here; below it the image is shrunk instead.
    public var qualityFloor: Int = 60
    /// Side of the square box the thumbnail fits in, e.g. 256; nil makes no thumbnail.
    public var thumbnailSize: Int? = nil
    /// JPEG quality of thumbnails.
    public var thumbnailQuality: Int = 80
    /// Codec warnings (a truncated scan, a bad Exif block) fail the image instead of being reported.
    public var strict: Bool = false
    /// Let an image smaller than `maxLongSide` grow to it (never done by default).
    public var allowUpscale: Bool = false
    /// Use an image whose data is damaged (a truncated scan, corrupt entropy-coded data) for
    /// what decodes, with a warning, instead of refusing it (`ProcessingError.damaged`).
    public var acceptDamaged: Bool = false
    /// The rules that decide which formats pass through as they are.
    public var rules: AppleRules = .standard
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
    /// long side, 24 MB decoded memory, 50 MP pixel budget, quality 85 down to 60, no
    /// thumbnail, lenient, no upscaling, damaged images refused, every scan validated.
    /// `decodeAhead` is not a parameter: it starts on; set the property to turn it off.
    public init(
        byteCap: Int = 10_000_000, maxLongSide: Int = 2048, decodedBudget: Int = 24_000_000,
        pixelBudget: Int = 50_000_000, quality: Int = 85, qualityFloor: Int = 60, thumbnailSize: Int? = nil,
        thumbnailQuality: Int = 80, strict: Bool = false, allowUpscale: Bool = false, acceptDamaged: Bool = false,
        rules: AppleRules = .standard, validateAllScans: Bool = true
    ) {
        self.byteCap = byteCap
        self.maxLongSide = maxLongSide
        self.decodedBudget = decodedBudget
        self.pixelBudget = pixelBudget
        self.quality = quality
        self.qualityFloor = qualityFloor
        self.thumbnailSize = thumbnailSize
        self.thumbnailQuality = thumbnailQuality
        self.strict = strict
        self.allowUpscale = allowUpscale
        self.acceptDamaged = acceptDamaged
        self.rules = rules
        self.validateAllScans = validateAllScans
    }
}
