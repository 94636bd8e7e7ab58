/// How every file is judged, in one place: Apple's rules, the sizes we fit images to, the pixel
/// budget, how strict to be with claims and codec warnings, whether damaged images are used, and
/// how messages name the settings. `Planner.plan` reads this one value and nothing else, and
/// `verify`, `prepare`, the library and `serve` all hand it the same one, so they cannot disagree
/// on a file.
///
///     var policy = AttachmentPolicy()
///     policy.acceptDamaged = true        // use what decodes of a truncated photo, with a warning
///     policy.rules.imageByteCap = 5_000_000
///     policy.maxLongSide = 1024
///     configuration.policy = policy      // AttachmentPreparer; AttachmentVerifier(policy: policy)
public struct AttachmentPolicy: Sendable, Hashable {
    /// Apple's types, caps and per-image decoded budget.
    public var rules: AppleRules
    /// Largest width × height decoded, checked on the header before any pixel memory is taken.
    public var pixelBudget: Int
    /// A claim (Content-Type, `media_type`, the name's extension) that disagrees with the bytes,
    /// a malformed Exif block and every codec warning are errors rather than warnings. Strict
    /// wins over `acceptDamaged`: a damaged image always has a codec warning.
    public var strict: Bool
    /// Damaged image data (a scan cut short, corrupt entropy-coded data) is used for what
    /// decodes, with a warning, instead of being refused as corrupt (105).
    public var acceptDamaged: Bool
    /// The long side, in pixels, a still or an animation is fitted within (2048).
    public var maxLongSide: Int
    /// Let an image smaller than `maxLongSide` grow to it (never done by default).
    public var allowUpscale: Bool
    /// The largest image taken in, in bytes (32 MB): images over iOS's 10 MB within it are
    /// shrunk, larger ones refused (102) as soon as their size shows. It covers any JPEG inside
    /// the 50-megapixel pixel budget. A cap under iOS's is honoured as given.
    public var imageInputCap: Int
    /// Most frames an animation may have to be kept animated (300). Our own policy, not Apple's:
    /// every frame is decoded, resized and quantised once per size tried, so the cap bounds the
    /// work per item; over it, the first frame is kept as a still.
    public var maxAnimationFrames: Int
    /// Longest total duration, in milliseconds, an animation may have to be kept animated
    /// (60 000). Our own policy too: a longer animation is nearly always a video better sent as
    /// one. Over it, the first frame is kept as a still.
    public var maxAnimationDuration: Int
    /// How reasons spell the settings they name: the library's API names unless given others
    /// (the command line gives its flags).
    public var settingNames: SettingNames

    /// The default policy: Apple's documented rules, a 2048-pixel long side, a 50-megapixel
    /// budget, a 32 MB image input cap, 300 frames and one minute for animations, lenient claims
    /// and codecs, damaged images refused, the library's setting names.
    public init(
        rules: AppleRules = .standard, pixelBudget: Int = 50_000_000, strict: Bool = false, acceptDamaged: Bool = false,
        maxLongSide: Int = 2048, allowUpscale: Bool = false, imageInputCap: Int = 32_000_000,
        maxAnimationFrames: Int = 300, maxAnimationDuration: Int = 60_000, settingNames: SettingNames = .library
    ) {
        self.rules = rules
        self.pixelBudget = pixelBudget
        self.strict = strict
        self.acceptDamaged = acceptDamaged
        self.maxLongSide = maxLongSide
        self.allowUpscale = allowUpscale
        self.imageInputCap = imageInputCap
        self.maxAnimationFrames = maxAnimationFrames
        self.maxAnimationDuration = maxAnimationDuration
        self.settingNames = settingNames
    }

    /// The largest input of `category` taken in: the image input cap for images, iOS's cap for
    /// audio and movies (they are never re-encoded); for bytes of no known kind, iOS's image cap.
    ///
    ///     AttachmentPolicy().inputCap(for: .movie)   // 50_000_000
    public func inputCap(for category: MediaCategory?) -> Int {
        switch category {
        case .image: max(1, imageInputCap)
        case .audio, .movie: rules.byteCap(for: category!)
        case nil: rules.imageByteCap
        }
    }

    /// The largest input of any kind: what a download may reach before its first bytes say
    /// what it is.
    public var largestInputCap: Int {
        max(inputCap(for: .image), rules.audioByteCap, rules.movieByteCap)
    }
}
